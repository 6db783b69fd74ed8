// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's raw local file system, setting and reading permissions with Java's own calls.
 *
 * <p>Without Hadoop's native library, which no Maven jar carries, the raw local file system sets a
 * permission by starting a {@code chmod} process, and it sets one on every file it creates (each
 * HFile, its checksum file, each WAL) and on every directory it makes; it reads a file's
 * permission, owner or group by starting {@code ls -ld}. Each process cost about 5 ms of CPU, and a
 * run of the test suites started some 20,000 {@code chmod} and 2,000 {@code ls}. A sticky bit,
 * which Java cannot set, is still set Hadoop's way.
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
      throw missing(path);
    }
  }

  @Override
  public FileStatus getFileStatus(Path path) throws IOException {
    FileStatus status = withOwnership(super.getFileStatus(path));
    if (status == null) throw missing(path);
    return status;
  }

  @Override
  public FileStatus[] listStatus(Path path) throws IOException {
    List<FileStatus> listed = new ArrayList<>();
    for (FileStatus status : super.listStatus(path)) {
      FileStatus read = withOwnership(status);
      // Deleted since it was listed, as Hadoop's own listing leaves such a file out.
      if (read != null) listed.add(read);
    }
    return listed.toArray(new FileStatus[0]);
  }

  private static FileNotFoundException missing(Path path) {
    return new FileNotFoundException("File " + path + " does not exist");
  }

  /** The status with its permission, owner and group read now, or null if the file is gone. */
  private FileStatus withOwnership(FileStatus status) throws IOException {
    if (status.isSymlink()) return status;
    Map<String, Object> unix;
    try {
      unix = Files.readAttributes(pathToFile(status.getPath()).toPath(), "unix:mode,owner,group");
    } catch (NoSuchFileException e) {
      return null;
    }
    return new FileStatus(
        status.getLen(),
        status.isDirectory(),
        status.getReplication(),
        status.getBlockSize(),
        status.getModificationTime(),
        status.getAccessTime(),
        // The permission bits and the sticky bit, as ls shows them.
        new FsPermission((short) ((Integer) unix.get("mode") & 01777)),
        ((UserPrincipal) unix.get("owner")).getName(),
        ((UserPrincipal) unix.get("group")).getName(),
        status.getPath());
  }
}
