// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.io.compress.Compression
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding
import org.apache.hadoop.hbase.io.hfile.{HFileContext, HFileContextBuilder}
import org.apache.hadoop.hbase.regionserver.BloomType
import org.apache.hadoop.hbase.util.ChecksumType

import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}

/**
 * How a column family stores its files, as the table says: HFiles written for a bulk load are
 * compressed, encoded, blocked and bloom-filtered the same way, as a region server would write
 * them (and as HBase's own HFileOutputFormat2 does). Plain names, so that tasks can carry it.
 */
final case class FamilyStorage(compression: String, encoding: String, blockSize: Int, bloom: String) {
  def context(conf: Configuration): HFileContext = new HFileContextBuilder()
    .withIncludesTags(false)
    .withCompression(Compression.getCompressionAlgorithmByName(compression))
    .withDataBlockEncoding(DataBlockEncoding.valueOf(encoding))
    .withBlockSize(blockSize)
    .withChecksumType(ChecksumType.nameToType(conf.get(
      "hbase.hstore.checksum.algorithm",
      ChecksumType.getDefaultChecksumType.getName
    )))
    .withBytesPerCheckSum(conf.getInt("hbase.hstore.bytes.per.checksum", 16 * 1024))
    .build()

  def bloomType: BloomType = BloomType.valueOf(bloom)
}

object FamilyStorage {

  /** Each family of the table, by name. */
  def of(cluster: HBaseClusterConf, table: TableName): Map[String, FamilyStorage] =
    HBaseConnections.withConnection(cluster) { connection =>
      val admin = connection.getAdmin
      try admin.getDescriptor(table).getColumnFamilies.map { family =>
          Utf8.string(family.getName) -> FamilyStorage(
            family.getCompressionType.getName,
            family.getDataBlockEncoding.name,
            family.getBlocksize,
            family.getBloomFilterType.name
          )
        }.toMap
      finally admin.close()
    }
}
