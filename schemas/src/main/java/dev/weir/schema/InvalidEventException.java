package dev.weir.schema;

/** A record that cannot become an event: the message is the readable reason for the DLQ. */
public class InvalidEventException extends Exception {
  public InvalidEventException(String reason) {
    super(reason);
  }

  public InvalidEventException(String reason, Throwable cause) {
    super(reason, cause);
  }
}
