// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's raw local file system, setting permissions with Java's own call.
 *
 * <p>Without Hadoop's native library, which no Maven jar carries, the raw local file system sets a
 * permission by starting a {@code chmod} process, and it sets one on every file it creates (each
 * HFile, its checksum file, each WAL) and on every directory it makes: about 5 ms of CPU each, some
 * 20,000 times in a run of the test suites. A sticky bit, which Java cannot set, still goes through
 * Hadoop's own way.
 */
public class InProcessPermissionsFileSystem extends RawLocalFileSystem {
  @Override
  public void setPermission(Path path, FsPermission permission) throws IOException {
    if (permission.getStickyBit()) {
      super.setPermission(path, permission);
      return;
    }
    try {
      // Without a sticky bit, Hadoop writes a permission as ls does: rwxr-x---.
      Files.setPosixFilePermissions(
          pathToFile(path).toPath(), PosixFilePermissions.fromString(permission.toString()));
    } catch (NoSuchFileException e) {
      throw new FileNotFoundException("File " + path + " does not exist");
    }
  }
}
