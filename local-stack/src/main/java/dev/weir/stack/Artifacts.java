package dev.weir.stack;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.maven.repository.internal.MavenRepositorySystemUtils;
import org.eclipse.aether.DefaultRepositorySystemSession;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.collection.CollectRequest;
import org.eclipse.aether.graph.Dependency;
import org.eclipse.aether.repository.LocalRepository;
import org.eclipse.aether.repository.RemoteRepository;
import org.eclipse.aether.resolution.ArtifactRequest;
import org.eclipse.aether.resolution.ArtifactResolutionException;
import org.eclipse.aether.resolution.DependencyRequest;
import org.eclipse.aether.resolution.DependencyResolutionException;
import org.eclipse.aether.supplier.RepositorySystemSupplier;
import org.eclipse.aether.util.artifact.JavaScopes;
import org.eclipse.aether.util.filter.DependencyFilterUtils;

/**
 * Fetches service artifacts from a Maven repository (Maven Central unless configured) into the
 * local Maven repository, with Maven's own resolver: the same cache the build uses.
 */
final class Artifacts {

  private final RepositorySystem system = new RepositorySystemSupplier().get();
  private final DefaultRepositorySystemSession session;
  private final RemoteRepository remote;

  Artifacts(StackSettings settings) {
    session = MavenRepositorySystemUtils.newSession();
    session.setLocalRepositoryManager(
        system.newLocalRepositoryManager(
            session, new LocalRepository(settings.mavenLocalRepository().toFile())));
    remote =
        new RemoteRepository.Builder("central", "default", settings.mavenRemoteRepository())
            .build();
  }

  /** One artifact file, e.g. {@code group:artifact:zip:version}. */
  Path resolve(String coordinates) {
    try {
      ArtifactRequest request =
          new ArtifactRequest(new DefaultArtifact(coordinates), List.of(remote), null);
      return system.resolveArtifact(session, request).getArtifact().getFile().toPath();
    } catch (ArtifactResolutionException e) {
      throw new StackException("cannot fetch " + coordinates + " from " + remote.getUrl(), e);
    }
  }

  /** The runtime class path of the given artifacts, with their transitive dependencies. */
  List<Path> classPath(List<String> coordinates) {
    CollectRequest collect = new CollectRequest();
    coordinates.forEach(
        c -> collect.addDependency(new Dependency(new DefaultArtifact(c), "runtime")));
    collect.setRepositories(List.of(remote));
    try {
      return system
          .resolveDependencies(
              session,
              new DependencyRequest(
                  collect, DependencyFilterUtils.classpathFilter(JavaScopes.RUNTIME)))
          .getArtifactResults()
          .stream()
          .map(r -> r.getArtifact().getFile().toPath())
          .collect(Collectors.toList());
    } catch (DependencyResolutionException e) {
      throw new StackException("cannot fetch " + coordinates + " from " + remote.getUrl(), e);
    }
  }
}
