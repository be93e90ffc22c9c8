package dev.weir.stack;

/**
 * A local service could not be fetched, started, reached or stopped; the message says which and
 * why.
 */
public class StackException extends RuntimeException {
  public StackException(String message) {
    super(message);
  }

  public StackException(String message, Throwable cause) {
    super(message, cause);
  }
}
