package dev.weir.it.failover;

import java.util.ArrayList;
import java.util.List;

/**
 * Workloads run at once on the cluster, each with its input flowing: one failure caused to the
 * cluster or a service meets every job, as it would on a shared session cluster, and the suite pays
 * for it once.
 */
final class Workloads implements AutoCloseable {

  private final List<String> names;
  private final List<Workload> workloads = new ArrayList<>();
  private final List<ContinuousInput> inputs = new ArrayList<>();

  Workloads(List<String> jobs, String run) throws Exception {
    this.names = List.copyOf(jobs);
    try {
      for (String job : jobs) {
        workloads.add(Workload.create(job, run));
      }
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  List<Workload> all() {
    return workloads;
  }

  /** The name of workload {@code i}: the job it is made for. */
  String name(int i) {
    return names.get(i);
  }

  /** Starts sending each workload's batches. */
  void startInputs() {
    for (Workload workload : workloads) {
      inputs.add(new ContinuousInput(workload));
    }
  }

  /** Workload {@code i}'s input. */
  ContinuousInput input(int i) {
    return inputs.get(i);
  }

  @Override
  public void close() throws Exception {
    for (ContinuousInput input : inputs) {
      input.close();
    }
    for (Workload workload : workloads) {
      workload.close();
    }
  }
}
