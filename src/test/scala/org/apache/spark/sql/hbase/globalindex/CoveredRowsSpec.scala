// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.hadoop.hbase.{Cell, CellComparator}
import org.apache.hadoop.hbase.client.{Put, Result}
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.sql.hbase.metadata._
import org.apache.spark.sql.hbase.server.IndexRows
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * A covering read decodes a data row from its index row exactly as a read of the data row would:
 * the index row a region server makes of random rows (`server.IndexRows`, as the observer writes
 * it) decodes, through [[CoveredRowDecoder]], to the columns the table's codec decodes from the
 * data row's own cells; for binary and text tables, of cells and packed, with NULLs, empty texts
 * and zero bytes in indexed texts. No HBase, no SparkSession.
 */
class CoveredRowsSpec extends AnyFunSpec with Matchers {
  private val columns = Seq(
    HBaseColumn("id", LongType, nullable = false, None),
    HBaseColumn("s", StringType, nullable = true, Some(CellRef("f", "s"))),
    HBaseColumn("n", IntegerType, nullable = true, Some(CellRef("f", "n"))),
    HBaseColumn("day", DateType, nullable = true, Some(CellRef("g", "day"))),
    HBaseColumn("amount", DecimalType(10, 2), nullable = true, Some(CellRef("g", "amount"))),
    HBaseColumn("note", StringType, nullable = true, Some(CellRef("h", "note")))
  )

  /**
   * Every column but note: on (s, n, day) covering amount; of a text table, whose region servers
   * compare only its texts, on (s) covering the rest.
   */
  private def indexOf(format: TableFormat) = GlobalIndexDef(
    "by_s",
    if (format == TableFormat.Binary) Seq("s", "n", "day") else Seq("s"),
    if (format == TableFormat.Binary) Seq("amount") else Seq("n", "day", "amount"),
    HBaseTableName("default", "t.by_s.idx"),
    GlobalIndexState.Ready
  )

  private def table(format: TableFormat, layout: TableLayout, index: GlobalIndexDef): HBaseTableDef = HBaseTableDef(
    "t",
    HBaseTableName("default", "t"),
    columns,
    Seq("id"),
    format,
    layout = layout,
    packedSlots =
      if (layout == TableLayout.Packed) Map("f" -> Seq("s", "n"), "g" -> Seq("day", "amount"), "h" -> Seq("note"))
      else Map.empty,
    globalIndexes = Seq(index)
  )

  private def randomRow(random: Random, id: Long): InternalRow = {
    def maybe[T](value: => T): Any = if (random.nextInt(4) == 0) null else value
    val texts = Seq("", "a", "a\u0000b", "é", "zz\u0000", "x" * 30)
    new GenericInternalRow(Array[Any](
      id,
      maybe(UTF8String.fromString(texts(random.nextInt(texts.size)))),
      maybe(random.nextInt(2000) - 1000),
      maybe(random.nextInt(40000) - 20000),
      maybe(Decimal(BigDecimal(random.nextInt(2000000) - 1000000, 2), 10, 2)),
      maybe(UTF8String.fromString(s"note $id"))
    ))
  }

  for (
    format <- Seq(TableFormat.Binary, TableFormat.StringFormat());
    layout <- Seq(TableLayout.Cells, TableLayout.Packed)
  ) {
    describe(s"a covered row of a ${format.name} table, LAYOUT ${layout.name}") {
      it("decodes to the columns a read of its data row gives") {
        val index = indexOf(format)
        val t = table(format, layout, index)
        val codec = new RowCodec(t)
        val spec = IndexSpecs.of(t, index)
        val required = columns.filterNot(_.name == "note")
        val decoder = new CoveredRowDecoder(t, index, required)
        val readData = codec.decoder(required, checkKeys = true)
        val random = new Random(29)
        var compared = 0
        for (id <- 0L until 2000L) {
          val row = randomRow(random, id)
          val put = codec.toMutations(row).collectFirst { case p: Put => p }.get
          val cells = put.getFamilyCellMap.values().asScala.flatMap(_.asScala).toSeq
            .sortWith((a, b) => CellComparator.getInstance().compare(a, b) < 0)
          val key = IndexRows.rowOf(spec, put.getRow, new java.util.ArrayList[Cell](cells.asJava))
          if (key != null) {
            val indexRow = IndexRows.verifiedPut(spec, key, new java.util.ArrayList[Cell](cells.asJava), 0L)
            // The index row as a covering read returns it: its status and covered cells, in HBase's order.
            val read = Result.create(indexRow.getFamilyCellMap.values().asScala.flatMap(_.asScala).toSeq
              .sortWith((a, b) => CellComparator.getInstance().compare(a, b) < 0).asJava)
            val coveredRow = CoveredRow.of(read, put.getRow, IndexSpecs.coveredCellsInRowOrder(t, index))
            val fromIndex = decoder(coveredRow, decoder.result(coveredRow))
            val fromData = readData(Result.create(cells.asJava))
            withClue(s"row $id: ")(fromIndex.toSeq(required.map(_.dataType)) shouldBe
              fromData.toSeq(required.map(_.dataType)))
            compared += 1
          }
        }
        compared should be > 1000
      }
    }
  }
}
