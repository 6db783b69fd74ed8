// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import java.nio.charset.StandardCharsets.ISO_8859_1

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{Cell, CellUtil}
import org.apache.hadoop.hbase.client.{Connection, Delete, Get, Result}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.HashPartitioner
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.connector.{HBaseTableIdent, RangeIndexes}
import org.apache.spark.sql.hbase.facts.HBaseRegions
import org.apache.spark.sql.hbase.globalindex.{
  ExpectedIndexRow, FoundIndexRow, IndexMarks, IndexRowVerdict, IndexSpecs, RawRows
}
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseTableDef}
import org.apache.spark.sql.hbase.server.{IndexMaintenanceObserver, IndexRows, IndexSpec, IndexTrust}
import org.apache.spark.sql.types.{LongType, StringType}

/**
 * CHECK INDEX i ON [TABLE] t [REPAIR]: compares a global index with its data table and reports
 * the data rows whose index rows are missing, stale, extra or unverified, with counts and example
 * keys. With REPAIR it deletes the wrong index rows and has the region servers write each
 * affected row's index row anew, under their index locks, as a write to the row would.
 */
case class CheckGlobalIndexCommand(tableName: HBaseTableIdent, indexName: String, repair: Boolean)
    extends LeafRunnableCommand {

  override val output: Seq[Attribute] = Seq(
    AttributeReference("index", StringType, nullable = false)(),
    AttributeReference("dataRows", LongType, nullable = false)(),
    AttributeReference("indexRows", LongType, nullable = false)(),
    AttributeReference("missing", LongType, nullable = false)(),
    AttributeReference("extra", LongType, nullable = false)(),
    AttributeReference("stale", LongType, nullable = false)(),
    AttributeReference("unverified", LongType, nullable = false)(),
    AttributeReference("repaired", LongType, nullable = false)(),
    AttributeReference("untrustedRegions", LongType, nullable = false)(),
    AttributeReference("examples", StringType, nullable = false)()
  )

  override def run(session: SparkSession): Seq[Row] = {
    val statement = s"CHECK INDEX $indexName ON $tableName${if (repair) " REPAIR" else ""}"
    val catalog = tableName.store(session, statement)
    val table = RangeIndexes.table(catalog, tableName, statement)
    val index = table.globalIndex(indexName).getOrElse {
      if (table.index(indexName).isDefined)
        throw new HBaseSQLException(s"$statement: '$indexName' is a range index; CHECK INDEX checks global indexes")
      throw new HBaseSQLException(s"$statement: table '${table.name}' has no index '$indexName'")
    }
    if (!index.isReady) {
      throw new HBaseSQLException(s"$statement: index '${index.name}' is still being built; check it once it is ready")
    }
    // Marks there before the check reads the data are of loads whose rows it reads.
    val marks = GlobalIndexCheck.marks(catalog.cluster, index)
    val tally = GlobalIndexCheck.run(session, catalog.cluster, table, index, repair, statement)
    val exact = tally.missing + tally.extra + tally.stale + tally.unverified == 0
    if (exact || repair) GlobalIndexCheck.trust(catalog.cluster, index, marks)
    val untrusted = GlobalIndexCheck.marks(catalog.cluster, index).untrusted.size
    Seq(Row(
      index.name,
      tally.dataRows,
      tally.indexRows,
      tally.missing,
      tally.extra,
      tally.stale,
      tally.unverified,
      tally.repaired,
      untrusted.toLong,
      tally.examples.mkString("; ")
    ))
  }
}

/** What a check found, summed over its tasks; `examples` are a few data row keys, each with what was wrong. */
final case class CheckTally(
    dataRows: Long = 0,
    indexRows: Long = 0,
    missing: Long = 0,
    extra: Long = 0,
    stale: Long = 0,
    unverified: Long = 0,
    repaired: Long = 0,
    examples: Seq[String] = Nil
) {
  def +(o: CheckTally): CheckTally = CheckTally(
    dataRows + o.dataRows,
    indexRows + o.indexRows,
    missing + o.missing,
    extra + o.extra,
    stale + o.stale,
    unverified + o.unverified,
    repaired + o.repaired,
    (examples ++ o.examples).take(GlobalIndexCheck.Examples)
  )
}

/**
 * The check as one Spark job: the data table's rows give the index rows they should have, the
 * index table's rows say which data row each names, and the two meet by data row key. A data row
 * found wrong is read again, with the index rows it gives and names, before it is reported or
 * repaired, so a write made during the check is not reported as damage.
 */
object GlobalIndexCheck {
  val Examples = 5

  // Keys travel as ISO-8859-1 text, one char per byte, so that they hash and compare by content.
  private def text(bytes: Array[Byte]): String = new String(bytes, ISO_8859_1)
  private def bytes(text: String): Array[Byte] = text.getBytes(ISO_8859_1)

  def run(
      session: SparkSession,
      cluster: HBaseClusterConf,
      table: HBaseTableDef,
      index: GlobalIndexDef,
      repair: Boolean,
      statement: String
  ): CheckTally = {
    val specBytes = IndexSpec.toBytes(java.util.List.of(IndexSpecs.of(table, index)), IndexSpec.FIRST_VERSION)
    val reads = IndexSpecs.readCells(table, index)
    val verifyFamily = reads.head._1
    val dataRegions = HBaseRegions.of(cluster, table.hbaseTable).map(r => (r.startKey, r.endKey))
    val indexRegions = HBaseRegions.of(cluster, index.indexTable).map(r => (r.startKey, r.endKey))
    val sc = session.sparkContext
    sc.setJobDescription(s"$statement: comparing index and data")
    try {
      val expected = sc.parallelize(dataRegions, math.max(1, dataRegions.size)).mapPartitions { part =>
        val spec = IndexSpec.parseFrom(specBytes).get(0)
        part.flatMap { case (start, stop) =>
          HBaseConnections.withConnection(cluster) { connection =>
            scanAll(connection, table.hbaseTable.hbase, start, stop, reads)(r =>
              expectedOf(spec, r).map(text(r.getRow) -> _)
            )
          }
        }
      }
      val found = sc.parallelize(indexRegions, math.max(1, indexRegions.size)).mapPartitions { part =>
        val spec = IndexSpec.parseFrom(specBytes).get(0)
        part.flatMap { case (start, stop) =>
          HBaseConnections.withConnection(cluster) { connection =>
            scanAll(connection, index.indexTable.hbase, start, stop, Nil) { r =>
              // A key this index cannot make names no data row: it goes with the empty key, never a row's.
              if (IndexTrust.isMarks(r.getRow)) None
              else Some(text(Option(spec.dataRowOf(r.getRow)).getOrElse(Array.emptyByteArray)) -> foundOf(r))
            }
          }
        }
      }
      val partitions = new HashPartitioner(math.max(1, math.max(dataRegions.size, indexRegions.size)))
      expected.cogroup(found, partitions).mapPartitions { groups =>
        val spec = IndexSpec.parseFrom(specBytes).get(0)
        var tally = CheckTally()
        val suspects = Seq.newBuilder[(String, Seq[Array[Byte]])]
        groups.foreach { case (row, (exp, fnd)) =>
          tally = tally.copy(dataRows = tally.dataRows + exp.size, indexRows = tally.indexRows + fnd.size)
          if (!IndexRowVerdict.of(exp.headOption, fnd.toSeq).isExact) suspects += row -> fnd.map(_.key).toSeq
        }
        val confirmed = HBaseConnections.withConnection(cluster) { connection =>
          suspects.result().map { case (row, keys) =>
            confirm(connection, table, index, spec, reads, bytes(row), keys, verifyFamily, repair)
          }
        }
        Iterator.single(confirmed.foldLeft(tally)(_ + _))
      }.collect().foldLeft(CheckTally())(_ + _)
    } finally sc.setJobDescription(null)
  }

  /** Reads a suspect data row and its index rows again, judges them, and repairs them if asked. */
  private def confirm(
      connection: Connection,
      table: HBaseTableDef,
      index: GlobalIndexDef,
      spec: IndexSpec,
      reads: Seq[(Array[Byte], Array[Byte])],
      row: Array[Byte],
      foundKeys: Seq[Array[Byte]],
      verifyFamily: Array[Byte],
      repair: Boolean
  ): CheckTally = {
    val data = connection.getTable(table.hbaseTable.hbase)
    val indexTable = connection.getTable(index.indexTable.hbase)
    try {
      val expected = if (row.isEmpty) None
      else {
        val get = new Get(row)
        reads.foreach { case (f, q) => get.addColumn(f, q) }
        expectedOf(spec, data.get(get))
      }
      // The index rows that named the row when the check met them, and the one it gives now, as they are now.
      val keys = (foundKeys ++ expected.map(_.key)).distinctBy(Bytes.toStringBinary)
      val named = indexTable.get(keys.map(k => new Get(k)).asJava).toSeq.filterNot(_.isEmpty).map(foundOf)
      val verdict = IndexRowVerdict.of(expected, named)
      if (verdict.isExact) CheckTally()
      else {
        var repaired = 0L
        if (repair) {
          val wrong = verdict.wrong(expected)
          // Each only up to the version seen: a write that puts the row back since does so later.
          wrong.foreach(w => indexTable.delete(new Delete(w.key, w.timestamp)))
          if (verdict.reverify(expected)) data.delete(IndexMaintenanceObserver.verifyRequest(row, verifyFamily))
          repaired = 1
        }
        val what = Seq(
          "missing" -> verdict.missing,
          "stale" -> verdict.stale,
          "extra" -> verdict.extra.nonEmpty,
          "unverified" -> verdict.unverified.nonEmpty
        ).collect { case (w, true) => w }
        CheckTally(
          missing = if (verdict.missing) 1 else 0,
          extra = verdict.extra.size,
          stale = if (verdict.stale) 1 else 0,
          unverified = verdict.unverified.size,
          repaired = repaired,
          examples = Seq(s"${Bytes.toStringBinary(row)} (${what.mkString(", ")})")
        )
      }
    } finally {
      indexTable.close()
      data.close()
    }
  }

  /** What the index table says of where it is not trusted (`server.IndexTrust`). */
  def marks(cluster: HBaseClusterConf, index: GlobalIndexDef): IndexMarks =
    HBaseConnections.withConnection(cluster) { connection =>
      val table = connection.getTable(index.indexTable.hbase)
      try IndexMarks.of(table)
      finally table.close()
    }

  /**
   * Clears the marks the check may clear and their older versions: a load that marked since has
   * marked a newer one (the region servers make each version newer than the last).
   */
  def trust(cluster: HBaseClusterConf, index: GlobalIndexDef, marks: IndexMarks): Unit =
    if (marks.clearable.nonEmpty) HBaseConnections.withConnection(cluster) { connection =>
      val table = connection.getTable(index.indexTable.hbase)
      try IndexMarks.clear(table, marks.clearable)
      finally table.close()
    }

  private def expectedOf(spec: IndexSpec, data: Result): Option[ExpectedIndexRow] =
    if (data.isEmpty) None
    else Option(IndexRows.rowOf(spec, data.getRow, data.listCells())).map { key =>
      val put = IndexRows.verifiedPut(spec, key, data.listCells(), 0L)
      ExpectedIndexRow(key, canonical(put.getFamilyCellMap.values().asScala.flatMap(_.asScala).toSeq))
    }

  private def foundOf(r: Result): FoundIndexRow = {
    val status = r.getValue(IndexSpec.STATUS_FAMILY, IndexSpec.STATUS)
    FoundIndexRow(
      r.getRow,
      status != null && status.length == 1 && status(0) == IndexSpec.VERIFIED,
      canonical(r.rawCells().toSeq),
      r.rawCells().map(_.getTimestamp).max
    )
  }

  /** Covered cells as comparable text: every cell but the status, by family and qualifier, with its value. */
  private def canonical(cells: Seq[Cell]): String =
    cells.filterNot(c => CellUtil.matchingFamily(c, IndexSpec.STATUS_FAMILY))
      .map(c =>
        s"${Bytes.toStringBinary(CellUtil.cloneFamily(c))}:${Bytes.toStringBinary(CellUtil.cloneQualifier(c))}=" +
          Bytes.toStringBinary(CellUtil.cloneValue(c))
      ).sorted.mkString("\n")

  private def scanAll[T](
      connection: Connection,
      name: org.apache.hadoop.hbase.TableName,
      start: Array[Byte],
      stop: Array[Byte],
      reads: Seq[(Array[Byte], Array[Byte])]
  )(f: Result => Option[T]): Seq[T] = {
    val out = Vector.newBuilder[T]
    RawRows.foreach(connection, name, start, stop, reads)(r => f(r).foreach(out += _))
    out.result()
  }
}
