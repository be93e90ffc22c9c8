package dev.weir.common.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.auth.callback.CallbackHandler;
import org.apache.kafka.common.security.scram.ScramLoginModule;

/**
 * Kafka's SCRAM login, with the password read when the client logs in: from the file named by the
 * {@code passwordFile} option, else from the environment variable named by {@code passwordEnv}. The
 * client settings (part of a job's graph) then carry where the password is, never the password, as
 * for weir's other secrets.
 */
public final class SecretScramLoginModule extends ScramLoginModule {

  @Override
  public void initialize(
      Subject subject,
      CallbackHandler callbackHandler,
      Map<String, ?> sharedState,
      Map<String, ?> options) {
    Map<String, Object> withPassword = new HashMap<>(options);
    withPassword.put("password", password(options));
    super.initialize(subject, callbackHandler, sharedState, withPassword);
  }

  private static String password(Map<String, ?> options) {
    Object file = options.get("passwordFile");
    if (file != null) {
      try {
        return Files.readString(Path.of(file.toString())).trim();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the Kafka password file " + file, e);
      }
    }
    String variable = String.valueOf(options.get("passwordEnv"));
    String password = System.getenv(variable);
    if (password == null) {
      throw new IllegalStateException(
          "no Kafka password: set " + variable + " or --kafka.sasl.password-file <file>");
    }
    return password;
  }
}
