package dev.weir.search;

import java.io.Serializable;

/** Reads what the copy holds of a product's large columns. */
public interface CopyReader extends AutoCloseable {

  /** {description, attributes} of a product in search_document (nulls if it is not there). */
  String[] largeValues(long productId) throws Exception;

  /** Opens a reader in the task. */
  @FunctionalInterface
  interface Opener extends Serializable {
    CopyReader open() throws Exception;
  }
}
