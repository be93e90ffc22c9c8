package dev.weir.backfill;

/** A backfill that cannot start or finish, with a message for the person who ran it. */
public final class BackfillException extends RuntimeException {
  public BackfillException(String message) {
    super(message);
  }

  public BackfillException(String message, Throwable cause) {
    super(message, cause);
  }
}
