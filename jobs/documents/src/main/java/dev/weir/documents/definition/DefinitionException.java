package dev.weir.documents.definition;

/**
 * A document definition weir cannot use: the message names the document, the node (its path of
 * labels from the root, e.g. {@code book.authors.city}) and the problem.
 */
public final class DefinitionException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  public DefinitionException(String message) {
    super(message);
  }

  static DefinitionException at(String path, String problem) {
    return new DefinitionException("node '" + path + "': " + problem);
  }
}
