package io.fffs.datanode;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * A DataNode's identity: a UUID generated on first start and kept in {@code datanode.uuid} in the data directory, so
 * that a restart on the same directory is the same DataNode to the NameNode.
 */
final class DatanodeIdentity {
  static final String FILE_NAME = "datanode.uuid";

  private DatanodeIdentity() {}

  static String loadOrCreate(Path dataDir) throws FffsException {
    Path file = dataDir.resolve(FILE_NAME);
    try {
      if (Files.exists(file)) {
        String uuid = Files.readString(file, StandardCharsets.UTF_8).trim();
        UUID.fromString(uuid);
        return uuid;
      }
      Files.createDirectories(dataDir);
      String uuid = UUID.randomUUID().toString();
      Path tmp = dataDir.resolve(FILE_NAME + ".tmp");
      Files.writeString(tmp, uuid + "\n", StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return uuid;
    } catch (IOException | IllegalArgumentException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot read or create the DataNode identity " + file + ": "
          + e.getMessage(), e);
    }
  }
}
