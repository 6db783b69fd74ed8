// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local;

import org.apache.hadoop.fs.LocalFileSystem;

/**
 * Hadoop's local file system with a name, for the embedded HBase only, that sets and reads
 * permissions without starting a process (see {@link InProcessPermissionsFileSystem}).
 *
 * <p>A region server moves a bulk-loaded file into its region only when the file's file system and
 * HBase's report the same canonical service name; otherwise it copies the file, twice (into its
 * staging directory, then into the region). On HDFS it moves. Hadoop's local file system reports no
 * name at all, so every bulk load on the local disk would copy each file twice. With a name, the
 * embedded HBase moves the files as an HDFS cluster would; a file on another disk is still copied,
 * by the rename itself.
 */
public class SingleLocalFileSystem extends LocalFileSystem {
  public SingleLocalFileSystem() {
    super(new InProcessPermissionsFileSystem());
  }

  @Override
  public String getCanonicalServiceName() {
    return "local";
  }
}
