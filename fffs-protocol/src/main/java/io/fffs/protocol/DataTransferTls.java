package io.fffs.protocol;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Locale;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.apache.hadoop.conf.Configuration;

/**
 * Protection of the TCP data port ({@code fffs.data.transfer.protection}): {@code authentication} (the default)
 * checks each request's block access token and sends bytes as they are; {@code integrity} and {@code privacy} also
 * run the connection over TLS, which authenticates the DataNode by its certificate and protects every byte from
 * being changed ({@code integrity}) and read ({@code privacy}). The JDK offers no TLS suite that authenticates
 * without encrypting, so both levels encrypt; they cost the same. Clients and DataNodes must agree on the level.
 */
public final class DataTransferTls {
  private DataTransferTls() {}

  public static final String PROTECTION_KEY = "fffs.data.transfer.protection";
  /** The DataNode's key and certificate (PKCS12 unless {@link #STORE_TYPE_KEY} says otherwise). */
  public static final String KEYSTORE_KEY = "fffs.data.transfer.tls.keystore";
  public static final String KEYSTORE_PASSWORD_KEY = "fffs.data.transfer.tls.keystore.password";
  /** The certificates a client trusts DataNodes by. */
  public static final String TRUSTSTORE_KEY = "fffs.data.transfer.tls.truststore";
  public static final String TRUSTSTORE_PASSWORD_KEY = "fffs.data.transfer.tls.truststore.password";
  public static final String STORE_TYPE_KEY = "fffs.data.transfer.tls.store-type";

  /** The protection levels, weakest first. */
  public enum Protection { AUTHENTICATION, INTEGRITY, PRIVACY }

  public static Protection protection(Configuration conf) {
    String value = conf.getTrimmed(PROTECTION_KEY, "authentication");
    try {
      return Protection.valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(PROTECTION_KEY + " must be authentication, integrity or privacy, not "
          + value);
    }
  }

  /** Whether the data port runs TLS. */
  public static boolean enabled(Configuration conf) {
    return protection(conf) != Protection.AUTHENTICATION;
  }

  /** The DataNode's TLS context, or null when the data port runs without TLS. */
  public static SslContext server(Configuration conf) throws IOException {
    if (!enabled(conf)) {
      return null;
    }
    try {
      KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      char[] password = password(conf, KEYSTORE_PASSWORD_KEY);
      keys.init(load(conf, KEYSTORE_KEY, password), password);
      return SslContextBuilder.forServer(keys).build();
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot set up TLS on the data port from " + conf.get(KEYSTORE_KEY) + ": "
          + e.getMessage(), e);
    }
  }

  /** A client's TLS context, or null when the data port runs without TLS. */
  public static SslContext client(Configuration conf) throws IOException {
    if (!enabled(conf)) {
      return null;
    }
    try {
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(load(conf, TRUSTSTORE_KEY, password(conf, TRUSTSTORE_PASSWORD_KEY)));
      return SslContextBuilder.forClient().trustManager(trust).build();
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot set up TLS to DataNodes from " + conf.get(TRUSTSTORE_KEY) + ": "
          + e.getMessage(), e);
    }
  }

  private static KeyStore load(Configuration conf, String key, char[] password)
      throws IOException, GeneralSecurityException {
    String path = conf.getTrimmed(key, "");
    if (path.isEmpty()) {
      throw new IOException(PROTECTION_KEY + "=" + protection(conf).name().toLowerCase(Locale.ROOT) + " runs TLS"
          + " on the data port, but " + key + " is not set");
    }
    KeyStore store = KeyStore.getInstance(conf.getTrimmed(STORE_TYPE_KEY, "PKCS12"));
    try (InputStream in = Files.newInputStream(Paths.get(path))) {
      store.load(in, password);
    }
    return store;
  }

  /** Through Hadoop's credential providers when configured, else the setting itself. */
  private static char[] password(Configuration conf, String key) throws IOException {
    char[] password = conf.getPassword(key);
    return password == null ? new char[0] : password;
  }
}
