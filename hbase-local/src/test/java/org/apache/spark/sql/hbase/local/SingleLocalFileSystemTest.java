// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The embedded HBase's local file system sets and reads the permissions, owners and groups that
 * Hadoop's own would.
 */
public class SingleLocalFileSystemTest {
  private java.nio.file.Path dir;
  private LocalFileSystem ours;
  private LocalFileSystem hadoops;

  @Before
  public void open() throws IOException {
    dir = Files.createTempDirectory("single-local-fs");
    Configuration conf = new Configuration(false);
    conf.set("fs.permissions.umask-mode", "022");
    ours = new SingleLocalFileSystem();
    ours.initialize(java.net.URI.create("file:///"), conf);
    hadoops = new LocalFileSystem();
    hadoops.initialize(java.net.URI.create("file:///"), conf);
  }

  @After
  public void close() throws IOException {
    ours.close();
    hadoops.close();
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  private Path directory() {
    return new Path(dir.toUri());
  }

  /** A path in the test's directory. */
  private Path at(String name) {
    return new Path(directory(), name);
  }

  private String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(java.nio.file.Paths.get(path.toUri())));
  }

  private Path written(FileSystem fs, String name) throws IOException {
    Path path = at(name);
    try (var out = fs.create(path)) {
      out.writeBytes("cells");
    }
    return path;
  }

  @Test
  public void setsEachModeOnAFileAndItsChecksumAsHadoopsChmodDoes() throws IOException {
    Path mine = written(ours, "mine");
    Path theirs = written(hadoops, "theirs");
    // Each digit takes each of its eight values, the others varying with it.
    for (int m = 0; m < 0777; m += 013) {
      FsPermission permission = new FsPermission((short) m);
      ours.setPermission(mine, permission);
      hadoops.setPermission(theirs, permission);
      String expected = mode(theirs);
      assertEquals(String.format("mode %04o", m), expected, mode(mine));
      assertEquals(
          String.format("mode %04o, checksum file", m),
          mode(hadoops.getChecksumFile(theirs)),
          mode(ours.getChecksumFile(mine)));
    }
  }

  @Test
  public void createsFilesAndDirectoriesWithTheModeAskedForLessTheUmask() throws IOException {
    Path file = at("created");
    ours.create(file, new FsPermission((short) 0666), false, 4096, (short) 1, 1 << 20, null)
        .close();
    assertEquals("rw-r--r--", mode(file));
    Path made = at("made/deeper");
    assertTrue(ours.mkdirs(made, new FsPermission((short) 0711)));
    assertEquals("rwx--x--x", mode(made));
  }

  @Test
  public void setsAStickyBitTheWayHadoopDoes() throws IOException {
    Path shared = at("shared");
    assertTrue(ours.mkdirs(shared));
    ours.setPermission(shared, new FsPermission((short) 01777));
    assertTrue(ours.getFileStatus(shared).getPermission().getStickyBit());
    assertEquals("rwxrwxrwx", mode(shared));
  }

  @Test
  public void readsTheStatusOfFilesAndDirectoriesAsHadoopsLsDoes() throws IOException {
    Path file = written(ours, "file");
    ours.setPermission(file, new FsPermission((short) 0640));
    Path sticky = at("sticky");
    assertTrue(ours.mkdirs(sticky, new FsPermission((short) 0755)));
    ours.setPermission(sticky, new FsPermission((short) 01777));
    for (Path path : new Path[] {file, sticky, directory()}) {
      assertSameStatus(hadoops.getFileStatus(path), ours.getFileStatus(path));
    }
    FileStatus[] theirs = hadoops.listStatus(directory());
    FileStatus[] mine = ours.listStatus(directory());
    assertEquals(2, mine.length); // the checksum file left out, as Hadoop's listing does
    assertEquals(theirs.length, mine.length);
    java.util.Arrays.sort(theirs);
    java.util.Arrays.sort(mine);
    for (int i = 0; i < mine.length; i++) assertSameStatus(theirs[i], mine[i]);
    assertThrows(FileNotFoundException.class, () -> ours.getFileStatus(at("missing")));
  }

  private static void assertSameStatus(FileStatus expected, FileStatus actual) {
    String what = expected.getPath().toString();
    assertEquals(what, expected.getPath(), actual.getPath());
    assertEquals(what, expected.getPermission(), actual.getPermission());
    assertEquals(what, expected.getOwner(), actual.getOwner());
    assertEquals(what, expected.getGroup(), actual.getGroup());
    assertEquals(what, expected.isDirectory(), actual.isDirectory());
    assertEquals(what, expected.getLen(), actual.getLen());
    assertEquals(what, expected.getModificationTime(), actual.getModificationTime());
  }

  @Test
  public void namesAPathThatDoesNotExist() {
    Path missing = at("missing");
    FileNotFoundException thrown =
        assertThrows(
            FileNotFoundException.class,
            () -> ours.setPermission(missing, new FsPermission((short) 0644)));
    assertTrue(thrown.getMessage(), thrown.getMessage().contains("missing"));
  }
}
