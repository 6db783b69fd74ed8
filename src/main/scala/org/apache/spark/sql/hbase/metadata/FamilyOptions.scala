// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import java.util.Locale

import org.apache.hadoop.hbase.KeepDeletedCells
import org.apache.hadoop.hbase.io.compress.Compression
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding
import org.apache.hadoop.hbase.regionserver.BloomType

import org.apache.spark.sql.hbase.common.HBaseSQLException

/**
 * The HBase settings of one column family, as CREATE TABLE ... FAMILIES (f (VERSIONS = 5, ...))
 * gives them: canonical option names (upper case) to checked values. They shape the HBase table
 * CREATE TABLE makes; the SQL table's definition does not keep them, HBase does.
 */
final case class FamilyOptions(family: String, settings: Seq[(String, String)])

object FamilyOptions {
  val Versions = "VERSIONS"
  val MinVersions = "MIN_VERSIONS"
  val Ttl = "TTL"
  val KeepDeleted = "KEEP_DELETED_CELLS"
  val CompressionOption = "COMPRESSION"
  val BlockEncoding = "DATA_BLOCK_ENCODING"
  val BloomFilter = "BLOOMFILTER"

  private def names(values: Array[_ <: Enum[_]]): Seq[String] = values.toSeq.map(_.name)

  /** Each option's allowed values, or None for a whole number. */
  private val choices: Seq[(String, Option[Seq[String]])] = Seq(
    Versions -> None,
    MinVersions -> None,
    Ttl -> None,
    KeepDeleted -> Some(names(KeepDeletedCells.values())),
    CompressionOption -> Some(names(Compression.Algorithm.values())),
    BlockEncoding -> Some(names(DataBlockEncoding.values())),
    // ROWPREFIX_FIXED_LENGTH needs a prefix length this syntax does not give.
    BloomFilter -> Some(names(BloomType.values()).filterNot(_ == BloomType.ROWPREFIX_FIXED_LENGTH.name))
  )

  /** Checks the options of `family` in CREATE TABLE `table`, whose families are `families`. */
  def of(table: String, families: Seq[String], family: String, options: Seq[(String, String)]): FamilyOptions = {
    def fail(msg: String) = throw new HBaseSQLException(s"CREATE TABLE $table FAMILIES $family: $msg")
    if (!families.contains(family)) {
      fail(s"'$family' is not a family of the table; its families are ${families.mkString(", ")}")
    }
    val checked = options.map { case (key, value) =>
      val name = key.toUpperCase(Locale.ROOT)
      val allowed = choices.find(_._1 == name).getOrElse(
        fail(s"unknown option '$key'; the options are ${choices.map(_._1).mkString(", ")}")
      )._2
      val canonical = allowed match {
        case Some(values) => values.find(_.equalsIgnoreCase(value)).getOrElse(
            fail(s"$name must be one of ${values.mkString(", ")}, not '$value'")
          )
        case None if name == Ttl && value.equalsIgnoreCase("FOREVER") => "FOREVER"
        case None => value.toIntOption.filter(_ >= (if (name == MinVersions) 0 else 1)).getOrElse(
            fail(s"$name must be a whole number of at least ${if (name == MinVersions) 0 else 1}" +
              (if (name == Ttl) " (seconds) or FOREVER" else "") + s", not '$value'")
          ).toString
      }
      name -> canonical
    }
    checked.groupBy(_._1).collectFirst { case (name, given) if given.size > 1 => name }
      .foreach(name => fail(s"$name is given more than once"))
    FamilyOptions(family, checked)
  }
}
