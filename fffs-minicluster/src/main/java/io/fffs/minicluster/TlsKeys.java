package io.fffs.minicluster;

import io.fffs.protocol.DataTransferTls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * A DataNode key pair (EC P-256, made with the JDK's keytool, valid for 127.0.0.1 and localhost) and a client
 * truststore that trusts it, for clusters that run the data port with TLS in tests and benchmarks.
 */
public final class TlsKeys {
  private TlsKeys() {}

  /** Writes the stores (PKCS12, protected by {@code password}) into {@code dir} and names them in {@code conf}. */
  public static void create(Path dir, String password, Configuration conf) throws IOException, InterruptedException {
    Path keystore = dir.resolve("dn.p12");
    Path certificate = dir.resolve("dn.crt");
    Path truststore = dir.resolve("trust.p12");
    keytool("-genkeypair", "-alias", "dn", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
        "-validity", "2", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-keystore", keystore.toString(),
        "-storetype", "PKCS12", "-storepass", password, "-keypass", password);
    keytool("-exportcert", "-alias", "dn", "-keystore", keystore.toString(), "-storetype", "PKCS12",
        "-storepass", password, "-file", certificate.toString());
    keytool("-importcert", "-noprompt", "-alias", "dn", "-file", certificate.toString(), "-keystore",
        truststore.toString(), "-storetype", "PKCS12", "-storepass", password);
    conf.set(DataTransferTls.KEYSTORE_KEY, keystore.toString());
    conf.set(DataTransferTls.KEYSTORE_PASSWORD_KEY, password);
    conf.set(DataTransferTls.TRUSTSTORE_KEY, truststore.toString());
    conf.set(DataTransferTls.TRUSTSTORE_PASSWORD_KEY, password);
  }

  private static void keytool(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IOException("keytool " + arguments[0] + " failed: " + output);
    }
  }
}
