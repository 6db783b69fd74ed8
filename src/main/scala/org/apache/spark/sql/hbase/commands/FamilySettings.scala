// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.hadoop.hbase.{HConstants, KeepDeletedCells}
import org.apache.hadoop.hbase.client.{ColumnFamilyDescriptor, ColumnFamilyDescriptorBuilder}
import org.apache.hadoop.hbase.io.compress.Compression
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding
import org.apache.hadoop.hbase.regionserver.BloomType

import org.apache.spark.sql.hbase.metadata.FamilyOptions

/** Checked [[FamilyOptions]] onto HBase's family descriptor, and back as DESCRIBE shows them. */
object FamilySettings {
  import FamilyOptions._

  def applied(builder: ColumnFamilyDescriptorBuilder, options: Option[FamilyOptions]): ColumnFamilyDescriptorBuilder = {
    options.toSeq.flatMap(_.settings).foreach {
      case (Versions, v) => builder.setMaxVersions(v.toInt)
      case (MinVersions, v) => builder.setMinVersions(v.toInt)
      case (Ttl, "FOREVER") => builder.setTimeToLive(HConstants.FOREVER)
      case (Ttl, v) => builder.setTimeToLive(v.toInt)
      case (KeepDeleted, v) => builder.setKeepDeletedCells(KeepDeletedCells.valueOf(v))
      case (CompressionOption, v) => builder.setCompressionType(Compression.Algorithm.valueOf(v))
      case (BlockEncoding, v) => builder.setDataBlockEncoding(DataBlockEncoding.valueOf(v))
      case (BloomFilter, v) => builder.setBloomFilterType(BloomType.valueOf(v))
      case (other, _) => throw new IllegalArgumentException(s"unchecked family option $other")
    }
    builder
  }

  def describe(family: ColumnFamilyDescriptor): String = Seq(
    Versions -> family.getMaxVersions.toString,
    MinVersions -> family.getMinVersions.toString,
    Ttl -> (if (family.getTimeToLive == HConstants.FOREVER) "FOREVER" else family.getTimeToLive.toString),
    KeepDeleted -> family.getKeepDeletedCells.name,
    CompressionOption -> family.getCompressionType.name,
    BlockEncoding -> family.getDataBlockEncoding.name,
    BloomFilter -> family.getBloomFilterType.name
  ).map { case (k, v) => s"$k $v" }.mkString(", ")
}
