package io.fffs.client;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;

/**
 * The {@code AbstractFileSystem} binding of {@code fffs://} ({@code fs.AbstractFileSystem.fffs.impl}), so
 * {@code FileContext} works; it delegates to {@link FreezeFrameFileSystem}.
 */
public class Fffs extends DelegateToFileSystem {
  public Fffs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(uri, new FreezeFrameFileSystem(), conf, FreezeFrameFileSystem.SCHEME, false);
  }

  @Override
  public int getUriDefaultPort() {
    return FffsClientConfigKeys.DEFAULT_PORT;
  }
}
