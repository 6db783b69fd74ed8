// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{
  CheckAndMutate, CoprocessorDescriptorBuilder, Delete, Get, Mutation, Put, Scan, TableDescriptorBuilder
}
import org.apache.hadoop.hbase.protobuf.ProtobufUtil
import org.apache.hadoop.hbase.protobuf.generated.ClientProtos.MutationProto.MutationType
import org.apache.hadoop.hbase.protobuf.generated.MultiRowMutationProtos
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.{HBaseSuite, Waits, codec, commands, execution, metadata}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.CommandResultExec
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.command.ExecutedCommandExec
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, ScanMetrics}
import org.apache.spark.sql.hbase.server.{CellBytes, PackedCell, PackedCellWriter, PackedPatch, ServerJar}
import org.apache.spark.sql.types.IntegerType
import org.apache.spark.sql.hbase.common.{Causes, HBaseSQLConf, HBaseSQLException}

/**
 * Tables in LAYOUT PACKED against the real HBase: one cell per family per row, every statement
 * that takes them giving what the same statements give over a table of one cell per column.
 */
class PackedTablesSpec extends HBaseSuite with AdaptiveSparkPlanHelper {
  private val keys = new BinaryKeyCodec(Seq(IntegerType))

  private def rowsOf(df: DataFrame): Seq[String] = df.collect().toSeq.map(_.toString).sorted

  private def rowsOf(query: String): Seq[String] = rowsOf(sql(query))

  private def definitionOf(name: String) = metadata.TableDefinitionStores.of(spark).get(name).get

  private def layoutOf(table: String): String =
    sql(s"DESCRIBE TABLE $table").collect().map(r => r.getString(0) -> r.getString(1)).toMap.apply("Layout")

  /** Creates `name` in a layout, with rows whose values are often NULL, two families, 3 regions. */
  private def create(name: String, layout: String): String = {
    sql(
      s"""CREATE TABLE $name (k INT, s STRING, n BIGINT, p DECIMAL(12,2), x DOUBLE, t TIMESTAMP, PRIMARY KEY (k))
         |MAPPED BY ($name, COLS=[s=f.s, n=f.n, p=f.p, x=g.x, t=g.t]) LAYOUT $layout SPLIT ON ((300), (600))""".stripMargin
    )
    sql(
      s"""INSERT INTO $name SELECT CAST(id AS INT), IF(id % 3 = 0, NULL, concat('s', id % 17)), IF(id % 5 = 0, NULL, id * 7),
         |IF(id % 4 = 1, NULL, CAST(id / 8 AS DECIMAL(12,2))), IF(id % 6 = 2, NULL, id / 3.0),
         |IF(id % 7 = 3, NULL, TIMESTAMP '2026-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id))
         |FROM range(0, 900)""".stripMargin
    )
    name
  }

  /** Runs an UPDATE; returns how many rows it updated and how many of them the region servers merged. */
  private def merged(statement: String): (Long, Long) = {
    val (updated, inRegionServers, _) = mergeCounts(statement)
    (updated, inRegionServers)
  }

  /** As [[merged]], and how many of those the region servers merged a region's rows in one call. */
  private def mergeCounts(statement: String): (Long, Long, Long) = {
    val df = sql(statement)
    val command = df.queryExecution.executedPlan match {
      case result: CommandResultExec => result.commandPhysicalPlan
      case other => other
    }
    val update = command.collectFirst { case ExecutedCommandExec(u: commands.UpdateHBaseTableCommand) => u }.get
    val metric = (name: String) => update.metrics(name).value
    (
      df.head().getLong(0),
      metric(commands.UpdateHBaseTableCommand.RowsMerged),
      metric(commands.UpdateHBaseTableCommand.RowsMergedByRegion)
    )
  }

  private lazy val (cells, packed) = {
    val t = uniqueName("packed")
    (create(s"${t}_cells", "CELLS"), create(t, "PACKED"))
  }

  describe("a table created with LAYOUT PACKED") {
    it("stores one cell per family per row, with an empty qualifier, holding the row's values") {
      withTable(packed) { table =>
        val results = table.getScanner(new Scan()).iterator().asScala.toSeq
        results should have size 900
        results.foreach(r =>
          r.rawCells().map(c =>
            (
              Bytes.toString(c.getFamilyArray, c.getFamilyOffset, c.getFamilyLength),
              c.getQualifierLength
            )
          ).toSeq shouldBe Seq(("f", 0), ("g", 0))
        )
        val row = results.find(r => Bytes.equals(r.getRow, keys.encode(Seq(11)))).get
        val f = row.getValue(Bytes.toBytes("f"), Array.emptyByteArray)
        val cell = PackedCell.read(f, 0, f.length)
        // s, n, p in COLS order
        Bytes.toString(cell.value(0)) shouldBe "s11"
        Bytes.toLong(cell.value(1)) shouldBe 77L
        Bytes.toBigDecimal(cell.value(2)) shouldBe sql(s"SELECT p FROM $cells WHERE k = 11").head().getDecimal(0)
      }
    }

    it("drops a row's old cells in memory as its memstore fills (EAGER in-memory compaction), unlike one of cells") {
      val t = uniqueName("packedmemstore")
      def policies(table: String) = withAdmin(_.getDescriptor(TableName.valueOf(table))).getColumnFamilies.toSeq
        .map(_.getInMemoryCompaction)
      policies(create(t, "PACKED")).distinct shouldBe Seq(org.apache.hadoop.hbase.MemoryCompactionPolicy.EAGER)
      policies(create(s"${t}_cells", "CELLS")).distinct should not contain
        org.apache.hadoop.hbase.MemoryCompactionPolicy.EAGER
    }

    it("says so in DESCRIBE, and SHOW CREATE TABLE gives a statement that maps it again") {
      val described = sql(s"DESCRIBE TABLE $packed").collect().map(r => r.getString(0) -> r.getString(1)).toMap
      described("Layout") shouldBe "PACKED"
      sql(s"DESCRIBE TABLE $cells").collect().map(r => r.getString(0) -> r.getString(1)).toMap.apply("Layout") shouldBe
        "CELLS"
      val statement = sql(s"SHOW CREATE TABLE $packed").head().getString(0)
      statement should include("LAYOUT PACKED")
      statement should include("PRIMARY KEY (`k`)")
      val again = uniqueName("again")
      sql(statement.replace(s"CREATE TABLE `$packed`", s"CREATE TABLE `$again`"))
      rowsOf(s"SELECT * FROM $again") shouldBe rowsOf(s"SELECT * FROM $packed")
      sql(s"DROP TABLE $again")
    }

    it("answers every kind of read as the same table of one cell per column does") {
      val queries = Seq(
        "SELECT * FROM %s",
        "SELECT k, p FROM %s WHERE k BETWEEN 250 AND 320",
        "SELECT * FROM %s WHERE k IN (0, 1, 299, 300, 899, 5000)",
        "SELECT k, s FROM %s WHERE s = 's3' AND n > 100",
        "SELECT x, t FROM %s WHERE p IS NULL AND k < 100",
        "SELECT count(*), count(s), sum(n), min(p), max(x), avg(n) FROM %s",
        "SELECT s, count(*), sum(p) FROM %s WHERE k >= 450 GROUP BY s",
        "SELECT k FROM %s WHERE t < TIMESTAMP '2026-01-01 00:05:00' ORDER BY k LIMIT 7"
      )
      for (q <- queries) withClue(q + ": ")(rowsOf(q.format(packed)) shouldBe rowsOf(q.format(cells)))
    }

    it("has the region servers read its values from the packed cells: predicates and aggregates run there") {
      val filtered = sql(s"SELECT k, s FROM $packed WHERE s = 's3' AND n > 100 AND p < 90")
      rowsOf(filtered) shouldBe rowsOf(sql(s"SELECT k, s FROM $cells WHERE s = 's3' AND n > 100 AND p < 90"))
      val metrics = ScanMetrics.of(filtered)
      withClue("the whole WHERE clause is checked in the region servers, so only matching rows come back: ")(
        metrics("rowsRead") shouldBe filtered.count()
      )
      val grouped = s"SELECT s, count(*), count(p), sum(n), min(p), max(x), avg(n) FROM %s WHERE k >= 100 GROUP BY s"
      val aggregate = sql(grouped.format(packed))
      collectWithSubqueries(aggregate.queryExecution.executedPlan) { case a: HBaseAggregateScan => a } should
        have size 1
      rowsOf(aggregate) shouldBe rowsOf(grouped.format(cells))
      ScanMetrics.of(aggregate)("rowsRead") should be <= 18L * 3
    }

    it("reads rows for their keys alone with HBase's own filters, as with the server jar's, and DELETE finds them so") {
      val queries = Seq(
        "SELECT k FROM %s WHERE k < 40",
        "SELECT k FROM %s WHERE k IN (1, 2, 650, 5000)",
        "SELECT count(*), max(k) FROM %s WHERE k >= 850"
      )
      // Without the server jar's filter, then without the aggregation coprocessor as well.
      val withoutFilter = Seq(HBaseSQLConf.CustomFilter.key -> "false")
      for (q <- queries; settings <- Seq(withoutFilter, withoutFilter :+ (HBaseSQLConf.Coprocessor.key -> "false")))
        withConf(settings: _*)(withClue(s"$q, $settings: ")(rowsOf(q.format(packed)) shouldBe rowsOf(q.format(cells))))
      val t = create(uniqueName("packeddel"), "PACKED")
      withConf(HBaseSQLConf.CustomFilter.key -> "false") {
        sql(s"DELETE FROM $t WHERE k >= 100").head() shouldBe Row(800L)
      }
      sql(s"SELECT count(*), max(k) FROM $t").head() shouldBe Row(100L, 99)
    }

    it("takes DELETE, write-time columns (one per family) and TIMESTAMP AS OF") {
      val t = create(uniqueName("packedrw"), "PACKED")
      sql(s"ALTER TABLE $t ADD COLUMN wt TIMESTAMP MAPPED BY (wt = WRITETIME(f.s))")
      sql(s"ALTER TABLE $t ADD COLUMN wn TIMESTAMP MAPPED BY (wn = WRITETIME(f.n))")
      sql(s"ALTER TABLE $t ADD COLUMN wx TIMESTAMP MAPPED BY (wx = WRITETIME(g.x))")
      val before = System.currentTimeMillis()
      Waits.clockPast(before)
      sql(s"INSERT INTO $t (k, s, n, p, x, t) VALUES (5000, 'late', 1, 2.5, 3.0, NULL)")
      sql(s"SELECT k FROM $t WHERE wt > TIMESTAMP_MILLIS($before)").collect().map(_.getInt(0)).toSeq shouldBe Seq(5000)
      sql(s"SELECT count(*) FROM $t TIMESTAMP AS OF TIMESTAMP_MILLIS($before)").head().getLong(0) shouldBe 900L
      val unchanged = rowsOf(s"SELECT k, s, n, p FROM $t WHERE k = 211")
      val beforeUpdate = Waits.afterNow()
      Waits.clockPast(beforeUpdate)
      sql(s"UPDATE $t SET s = 'x' WHERE k = 211")
      withClue("a write time is its family's: updating s moves n's, not x's: ") {
        val times = sql(s"SELECT wt > TIMESTAMP_MILLIS($beforeUpdate), wn = wt, wx < TIMESTAMP_MILLIS($beforeUpdate) " +
          s"FROM $t WHERE k = 211").head()
        times shouldBe Row(true, true, true)
      }
      rowsOf(s"SELECT k, s, n, p FROM $t WHERE k = 211") shouldBe unchanged.map(_.replace(",s7,", ",x,"))
      rowsOf(s"SELECT k, s, n, p FROM $t TIMESTAMP AS OF TIMESTAMP_MILLIS($beforeUpdate) WHERE k = 211") shouldBe
        unchanged
      sql(s"DELETE FROM $t WHERE k < 100 OR s = 'late'")
      sql(s"SELECT count(*), min(k) FROM $t").head() shouldBe Row(800L, 100)
    }

    it("reads rows written before ALTER TABLE ADD COLUMN with NULL in it, and keeps a dropped column's slot") {
      val t = create(uniqueName("packedalter"), "PACKED")
      sql(s"ALTER TABLE $t ADD COLUMN later INT MAPPED BY (later = f.later)")
      sql(s"INSERT INTO $t (k, s, n, p, x, t, later) VALUES (1000, 'new', 2, 1.5, 0.5, NULL, 42)")
      rowsOf(s"SELECT k, later FROM $t WHERE k IN (1, 1000)") shouldBe Seq("[1,null]", "[1000,42]")
      sql(s"ALTER TABLE $t DROP COLUMN n")
      rowsOf(s"SELECT k, s, p, later FROM $t WHERE k IN (1, 1000)") shouldBe
        Seq("[1,s1,null,null]", "[1000,new,1.50,42]")
      sql(s"INSERT INTO $t (k, s, p, x, t, later) VALUES (1001, 'after', 3.25, NULL, NULL, 7)")
      rowsOf(s"SELECT k, s, p, later FROM $t WHERE k > 999") shouldBe Seq("[1000,new,1.50,42]", "[1001,after,3.25,7]")
      val slots = sql(s"DESCRIBE TABLE $t").collect().find(_.getString(0) == "Layout").get.getString(2)
      slots should include("f: s, n, p, later")
    }

    it("loads with LOAD DATA the rows a table of one cell per column loads from the same file") {
      val t = uniqueName("packedload")
      val (packedLoad, cellsLoad) = (create(t, "PACKED"), create(s"${t}_cells", "CELLS"))
      val csv = java.nio.file.Files.createTempDirectory("packedload").resolve("rows.csv")
      java.nio.file.Files.writeString(csv, "2000,a,1,1.5,2.5,2026-02-01 00:00:00\n2001,,,,,\n1,b,2,0.25,,\n")
      for (table <- Seq(packedLoad, cellsLoad)) sql(s"LOAD DATA LOCAL INPATH '$csv' INTO TABLE $table")
      rowsOf(s"SELECT * FROM $packedLoad") shouldBe rowsOf(s"SELECT * FROM $cellsLoad")
      rowsOf(s"SELECT k, s, n FROM $packedLoad WHERE k IN (1, 2000)") shouldBe Seq("[1,b,2]", "[2000,a,1]")
    }
  }

  describe("UPDATE of a packed table") {
    it("changes what the same UPDATE changes in a table of one cell per column") {
      val t = uniqueName("packedupd")
      val (packedUpd, cellsUpd) = (create(t, "PACKED"), create(s"${t}_cells", "CELLS"))
      val updates = Seq(
        "UPDATE %s SET s = concat(s, '!') WHERE k %% 10 = 1",
        "UPDATE %s SET n = NULL, p = p * 2 WHERE k BETWEEN 290 AND 610",
        "UPDATE %s SET x = n / 4, s = NULL, t = TIMESTAMP '2030-01-01 00:00:00' WHERE s = 's5' OR n IS NULL",
        "UPDATE %s SET p = 1.25 WHERE k IN (0, 1, 2, 899, 4000)",
        "UPDATE %s SET s = 'all', n = NULL, p = NULL WHERE k = 7"
      )
      for (u <- updates) {
        withClue(u + ": ")(sql(u.format(packedUpd)).head() shouldBe sql(u.format(cellsUpd)).head())
        withClue(u + ": ")(rowsOf(s"SELECT * FROM $packedUpd") shouldBe rowsOf(s"SELECT * FROM $cellsUpd"))
      }
      withClue("a row whose values all became NULL stays a row: ") {
        sql(s"UPDATE $packedUpd SET s = NULL, n = NULL, p = NULL, x = NULL, t = NULL WHERE k = 8")
        rowsOf(s"SELECT * FROM $packedUpd WHERE k = 8") shouldBe Seq("[8,null,null,null,null,null]")
      }
    }

    it(
      "is merged into the packed cells by the region servers, or read and written from Spark where they cannot, alike"
    ) {
      val t = uniqueName("packedmerge")
      val cellsTable = create(s"${t}_cells", "CELLS")
      // The same UPDATEs: merged by the region servers, with the merge off, and on a table without the merge.
      val (merging, off, without) = (create(t, "PACKED"), create(s"${t}_off", "PACKED"), create(s"${t}_none", "PACKED"))
      def observer(table: String) = withAdmin(_.getDescriptor(TableName.valueOf(table))).getCoprocessorDescriptors
        .asScala.find(_.getClassName == ServerJar.PACKED_MERGE_OBSERVER)
      withClue("CREATE TABLE adds the merge, before the table's other observers: ")(
        observer(merging).map(_.getPriority) shouldBe Some(ServerJar.PACKED_MERGE_PRIORITY)
      )
      withAdmin { admin =>
        val name = TableName.valueOf(without)
        admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
          .removeCoprocessor(ServerJar.PACKED_MERGE_OBSERVER).build())
      }
      observer(without) shouldBe None
      val updates = Seq(
        "UPDATE %s SET s = concat(s, '!'), x = -x WHERE k %% 10 = 1",
        "UPDATE %s SET n = NULL, p = p * 2 WHERE k BETWEEN 290 AND 610",
        "UPDATE %s SET t = NULL, s = 'all', n = 5 WHERE k IN (0, 3, 899, 4000)"
      )
      for (u <- updates) withClue(u + ": ") {
        val (expected, _) = merged(u.format(cellsTable))
        merged(u.format(merging)) shouldBe ((expected, expected))
        withConf(HBaseSQLConf.PackedUpdateMerge.key -> "false")(merged(u.format(off)) shouldBe ((expected, 0L)))
        merged(u.format(without)) shouldBe ((expected, 0L))
        val rows = rowsOf(s"SELECT * FROM $cellsTable")
        for (table <- Seq(merging, off, without)) withClue(s"$table: ")(rowsOf(s"SELECT * FROM $table") shouldBe rows)
      }
      withClue("a row deleted since the statement read it is not brought back, nor counted: ") {
        val update =
          new codec.PackedRowUpdate(new codec.RowCodec(definitionOf(merging)), Seq(definitionOf(merging).column("n")))
        val patch = update.patch(InternalRow(123456, 1L))
        val answer = withTable(merging)(_.append(patch))
        rowsOf(s"SELECT k FROM $merging WHERE k = 123456") shouldBe empty
        withTable(merging)(_.get(new org.apache.hadoop.hbase.client.Get(keys.encode(Seq(123456))))).isEmpty shouldBe
          true
        withClue(s"$answer: ")(answer.isEmpty shouldBe true)
      }
    }

    it(
      "sends a region's rows in one call where the table has HBase's MultiRowMutationEndpoint, and row by row where not"
    ) {
      val t = uniqueName("packedregion")
      val cellsTable = create(s"${t}_cells", "CELLS")
      val (byRegion, byRow) = (create(t, "PACKED"), create(s"${t}_rows", "PACKED"))
      def endpoint(table: String) =
        withAdmin(
          _.getDescriptor(TableName.valueOf(table))
        ).hasCoprocessor(execution.write.PackedUpdates.RegionBatchEndpoint)
      withClue("CREATE TABLE adds the endpoint to a packed table: ")(endpoint(byRegion) shouldBe true)
      withAdmin { admin =>
        val name = TableName.valueOf(byRow)
        admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
          .removeCoprocessor(execution.write.PackedUpdates.RegionBatchEndpoint).build())
      }
      endpoint(byRow) shouldBe false
      for (
        u <- Seq("UPDATE %s SET s = concat(s, '#'), x = x * 2 WHERE k %% 3 = 1", "UPDATE %s SET n = NULL WHERE k < 450")
      )
        withClue(u + ": ") {
          val (expected, _) = merged(u.format(cellsTable))
          mergeCounts(u.format(byRegion)) shouldBe ((expected, expected, expected))
          mergeCounts(u.format(byRow)) shouldBe ((expected, expected, 0L))
          val rows = rowsOf(s"SELECT * FROM $cellsTable")
          for (table <- Seq(byRegion, byRow)) withClue(s"$table: ")(rowsOf(s"SELECT * FROM $table") shouldBe rows)
        }
      withClue(s"${HBaseSQLConf.PackedUpdateRegionBatches.key}=false: row by row: ")(withConf(
        HBaseSQLConf.PackedUpdateRegionBatches.key -> "false"
      )(mergeCounts(s"UPDATE $byRegion SET x = 1.5 WHERE k < 30") shouldBe ((30L, 30L, 0L))))
      val nUpdate =
        new codec.PackedRowUpdate(new codec.RowCodec(definitionOf(byRegion)), Seq(definitionOf(byRegion).column("n")))
      def regionCall(mutations: Seq[(MutationType, Mutation)]): Unit = {
        val request = MultiRowMutationProtos.MutateRowsRequest.newBuilder()
        mutations.foreach { case (kind, m) => request.addMutationRequest(ProtobufUtil.toMutation(kind, m)) }
        withTable(byRegion) { table =>
          MultiRowMutationProtos.MultiRowMutationService.newBlockingStub(
            table.coprocessorService(keys.encode(Seq(700)))
          )
            .mutateRows(null, request.build())
        }
      }
      for (
        (kind, patch, plus) <- Seq[(MutationType, InternalRow => Mutation, Long)](
          (MutationType.PUT, nUpdate.regionPatch(_), 42L),
          (MutationType.APPEND, nUpdate.patch(_), 84L)
        )
      )
        withClue(s"a call's row that is gone, deleted since the statement read it, is not brought back ($kind): ") {
          regionCall(Seq(123456, 700, 701).map(k => kind -> patch(InternalRow(k, k + plus))))
          rowsOf(s"SELECT k, n FROM $byRegion WHERE k IN (123456, 700, 701)") shouldBe
            Seq(s"[700,${700 + plus}]", s"[701,${701 + plus}]")
          withTable(byRegion)(_.get(new Get(keys.encode(Seq(123456))))).isEmpty shouldBe true
        }
      withClue("a region server merges Puts of patches only in one atomic call, and refuses them elsewhere: ") {
        val before = rowsOf(s"SELECT * FROM $byRegion WHERE k IN (5, 6)")
        val refusals = Seq(
          Try(withTable(byRegion)(_.put(nUpdate.regionPatch(InternalRow(5, -1L))))),
          Try(withTable(byRegion)(
            _.batch(
              Seq[org.apache.hadoop.hbase.client.Row](
                nUpdate.regionPatch(InternalRow(5, -1L)),
                nUpdate.regionPatch(InternalRow(6, -1L))
              ).asJava,
              new Array[AnyRef](2)
            )
          ))
        )
        for (refusal <- refusals) {
          refusal.isFailure shouldBe true
          Causes.rootMessage(refusal.failed.get) should
            include(s"${PackedPatch.FAMILY_PREFIX} refused: a Put of patches")
        }
        rowsOf(s"SELECT * FROM $byRegion WHERE k IN (5, 6)") shouldBe before
        withClue("two Puts of patches of one row in one call: ") {
          val row700 = rowsOf(s"SELECT * FROM $byRegion WHERE k = 700")
          val twice =
            Try(regionCall(Seq(700, 700).map(k => MutationType.PUT -> nUpdate.regionPatch(InternalRow(k, -1L)))))
          Causes.rootMessage(twice.failed.get) should include("two Puts of patches of row")
          rowsOf(s"SELECT * FROM $byRegion WHERE k = 700") shouldBe row700
        }
      }
    }

    it("is merged by the region servers once a table made without the merge gets it as docs/deployment.md says") {
      val t = uniqueName("packedlater")
      val cellsTable = create(s"${t}_cells", "CELLS")
      // As a table made before the merge existed: CREATE TABLE leaves the coprocessors out.
      val later = withConf(HBaseSQLConf.Coprocessor.key -> "false")(create(t, "PACKED"))
      val name = TableName.valueOf(later)
      def coprocessors = withAdmin(_.getDescriptor(name)).getCoprocessorDescriptors.asScala
        .map(c => c.getClassName -> c.getPriority).toMap
      coprocessors shouldBe empty
      def sameUpdate(update: String, mergedRows: Long => Long): Unit = withClue(update + ": ") {
        val (expected, _) = merged(update.format(cellsTable))
        merged(update.format(later)) shouldBe ((expected, mergedRows(expected)))
        rowsOf(s"SELECT * FROM $later") shouldBe rowsOf(s"SELECT * FROM $cellsTable")
      }
      sameUpdate("UPDATE %s SET s = concat(s, '?'), x = x + 1 WHERE k %% 7 = 2", _ => 0L)
      // The HBase shell's `alter` lines of the page, applied as the shell applies them.
      val page = java.nio.file.Files.readString(java.nio.file.Paths.get("docs", "deployment.md"))
      val documented = """'coprocessor' => '\|([\w.]+)\|(\d+)\|'""".r.findAllMatchIn(page)
        .map(m => m.group(1) -> m.group(2).toInt).toMap
      documented shouldBe Map(
        ServerJar.AGGREGATE_OBSERVER -> org.apache.hadoop.hbase.Coprocessor.PRIORITY_USER,
        ServerJar.PACKED_MERGE_OBSERVER -> ServerJar.PACKED_MERGE_PRIORITY,
        execution.write.PackedUpdates.RegionBatchEndpoint -> org.apache.hadoop.hbase.Coprocessor.PRIORITY_USER
      )
      withAdmin { admin =>
        val descriptor = TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
        documented.foreach { case (className, priority) =>
          descriptor.setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(className).setPriority(priority).build())
        }
        admin.modifyTable(descriptor.build()) // returns once the regions reopened with them
      }
      coprocessors shouldBe documented
      // And its families' in-memory compaction, as CREATE TABLE gives a packed table's.
      val inMemory = """IN_MEMORY_COMPACTION => '(\w+)'""".r.findAllMatchIn(page).map(_.group(1)).toSeq
      inMemory shouldBe Seq(org.apache.hadoop.hbase.MemoryCompactionPolicy.EAGER.name)
      withAdmin { admin =>
        admin.getDescriptor(name).getColumnFamilies.foreach { family =>
          admin.modifyColumnFamily(
            name,
            org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder.newBuilder(family)
              .setInMemoryCompaction(org.apache.hadoop.hbase.MemoryCompactionPolicy.valueOf(inMemory.head)).build()
          )
        }
      }
      withAdmin(_.getDescriptor(name)).getColumnFamilies.map(_.getInMemoryCompaction).toSet shouldBe
        Set(org.apache.hadoop.hbase.MemoryCompactionPolicy.EAGER)
      sameUpdate("UPDATE %s SET n = n * 3, t = NULL WHERE k BETWEEN 250 AND 650", updated => updated)
      withClue("a region's rows in one call: ")(mergeCounts(s"UPDATE $later SET x = 0.5 WHERE k < 400") shouldBe
        ((400L, 400L, 400L)))
    }

    it(
      "merged by the region servers, loses none of its values to a plain client's conditional writes of the same cells"
    ) {
      val t = create(uniqueName("packedplain"), "PACKED")
      val rounds = 4
      val definition = definitionOf(t)
      val sSlot = definition.slotOf(definition.column("s").cell.get)
      val f = Bytes.toBytes("f")
      val plainRows = 0 until 150
      val expected = rowsOf(
        s"SELECT k, n + $rounds, p + $rounds, IF(k < 150, concat(s, repeat('+', $rounds)), s) FROM $t " +
          "WHERE n IS NOT NULL AND p IS NOT NULL AND s IS NOT NULL"
      )
      // As another tool would: read the packed cell, change s, write it if it is still the one read.
      def plainClient(): Unit = withTable(t) { table =>
        for (_ <- 1 to rounds; k <- plainRows) {
          var written = false
          while (!written) {
            val cell =
              table.get(new org.apache.hadoop.hbase.client.Get(keys.encode(Seq(k))).addColumn(f, PackedCell.QUALIFIER))
                .getValue(f, PackedCell.QUALIFIER)
            if (cell == null) written = true // every column of family f NULL: nothing to change
            else {
              val packed = PackedCell.read(cell, 0, cell.length)
              val values = (0 until math.max(packed.columns, sSlot + 1)).map(i =>
                if (i < packed.columns) packed.value(i) else null
              ).toArray
              if (values(sSlot) != null) values(sSlot) = values(sSlot) ++ Bytes.toBytes("+")
              written = table.checkAndMutate(
                CheckAndMutate.newBuilder(keys.encode(Seq(k))).ifEquals(f, PackedCell.QUALIFIER, cell)
                  .build(new Put(keys.encode(Seq(k))).addColumn(
                    f,
                    PackedCell.QUALIFIER,
                    PackedCellWriter.write(values)
                  ))
              ).isSuccess
            }
          }
        }
      }
      val pool = java.util.concurrent.Executors.newFixedThreadPool(3)
      try {
        val runs = Seq(
          pool.submit(new java.util.concurrent.Callable[Long] {
            override def call(): Long = { plainClient(); 0L }
          })
        ) ++ Seq(s"UPDATE $t SET n = n + 1", s"UPDATE $t SET p = p + 1").map { statement =>
          pool.submit(new java.util.concurrent.Callable[Long] {
            override def call(): Long = (1 to rounds).map(_ => sql(statement).head().getLong(0)).sum
          })
        }
        runs.map(_.get(5, java.util.concurrent.TimeUnit.MINUTES)) shouldBe Seq(0L, 900L * rounds, 900L * rounds)
      } finally pool.shutdownNow()
      rowsOf(s"SELECT k, n, p, s FROM $t WHERE n IS NOT NULL AND p IS NOT NULL AND s IS NOT NULL") shouldBe expected
    }

    it("writes a packed cell only if it is still the one read, and reads and merges again if not") {
      val t = create(uniqueName("packedcas"), "PACKED")
      val update = new codec.PackedRowUpdate(new codec.RowCodec(definitionOf(t)), Seq(definitionOf(t).column("n")))
      val key = keys.encode(Seq(11))
      val staleWrite = withTable(t) { table =>
        update.write(InternalRow(11, 1L), table.get(update.read(key))).get
      }
      sql(s"UPDATE $t SET p = 99.5 WHERE k = 11") // another statement rewrites family f meanwhile
      withTable(t)(_.checkAndMutate(staleWrite).isSuccess) shouldBe false
      rowsOf(s"SELECT n, p FROM $t WHERE k = 11") shouldBe Seq("[77,99.50]")
      sql(s"UPDATE $t SET n = 1 WHERE k = 11")
      rowsOf(s"SELECT n, p FROM $t WHERE k = 11") shouldBe Seq("[1,99.50]")
      withClue("a family the row has no cell of yet, written meanwhile by another: ") {
        withTable(t)(_.delete(new Delete(key).addFamily(Bytes.toBytes("g"))))
        val xUpdate = new codec.PackedRowUpdate(new codec.RowCodec(definitionOf(t)), Seq(definitionOf(t).column("x")))
        val stale = withTable(t)(table => xUpdate.write(InternalRow(11, 2.0), table.get(xUpdate.read(key))).get)
        sql(s"UPDATE $t SET t = TIMESTAMP '2031-01-01 00:00:00' WHERE k = 11")
        withTable(t)(_.checkAndMutate(stale).isSuccess) shouldBe false
        val fresh = withTable(t)(table => xUpdate.write(InternalRow(11, 2.0), table.get(xUpdate.read(key))).get)
        withTable(t)(_.checkAndMutate(fresh).isSuccess) shouldBe true
        rowsOf(s"SELECT x, t FROM $t WHERE k = 11") shouldBe Seq("[2.0,2031-01-01 00:00:00.0]")
      }
      withClue("a row deleted since the statement read it is not brought back: ") {
        withTable(t)(table =>
          update.write(InternalRow(12, 1L), table.get(update.read(keys.encode(Seq(123456)))))
        ) shouldBe
          None
      }
    }

    it("loses none of three statements that update different columns of the same rows at the same time") {
      val t = create(uniqueName("packedrace"), "PACKED")
      val rounds = 8
      val whole = "n IS NOT NULL AND p IS NOT NULL AND s IS NOT NULL"
      val expected = rowsOf(s"SELECT k, n + $rounds, p + $rounds, concat(s, repeat('+', $rounds)) FROM $t WHERE $whole")
      // s, n and p share family f, so each statement rewrites the packed cells the others do.
      val statements =
        Seq(s"UPDATE $t SET n = n + 1", s"UPDATE $t SET p = p + 1", s"UPDATE $t SET s = concat(s, '+')")
      val pool = java.util.concurrent.Executors.newFixedThreadPool(statements.size)
      try {
        val runs = statements.map { statement =>
          pool.submit(new java.util.concurrent.Callable[Long] {
            override def call(): Long = (1 to rounds).map(_ => sql(statement).head().getLong(0)).sum
          })
        }
        runs.map(_.get(5, java.util.concurrent.TimeUnit.MINUTES)) shouldBe statements.map(_ => 900L * rounds)
      } finally pool.shutdownNow()
      rowsOf(s"SELECT k, n, p, s FROM $t WHERE $whole") shouldBe expected
    }
  }

  describe("a packed table that other tools write to") {
    it("reads a packed cell they wrote, and reports a cell of one column, or a malformed packed cell, naming the row") {
      val t = uniqueName("packedforeign")
      sql(
        s"CREATE TABLE $t (k INT, s STRING, n INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[s=f.s, n=f.n]) LAYOUT PACKED"
      )
      sql(s"INSERT INTO $t VALUES (1, 'ours', 1)")
      val f = Bytes.toBytes("f")
      withTable(t)(_.put(Seq(
        new Put(keys.encode(Seq(2)))
          .addColumn(
            f,
            Array.emptyByteArray,
            PackedCellWriter.write(Array(Bytes.toBytes("theirs"), CellBytes.ofIntegral(2, 4)))
          ),
        new Put(keys.encode(Seq(3))).addColumn(f, Bytes.toBytes("s"), Bytes.toBytes("one cell"))
      ).asJava))
      rowsOf(s"SELECT * FROM $t WHERE k <= 2") shouldBe Seq("[1,ours,1]", "[2,theirs,2]")
      val error = intercept[Exception](sql(s"SELECT * FROM $t").collect())
      val message = HBaseSQLException.causeOf(error).map(_.getMessage).getOrElse(error.getMessage)
      message should include(s"Table '$t'")
      message should include("its cell f:s is not a packed cell")
      withTable(t)(_.put(new Put(keys.encode(Seq(4))).addColumn(f, Array.emptyByteArray, Array[Byte](1, 1, 9, 0))))
      withConf(HBaseSQLConf.BadRowKeys.key -> "skip") {
        val df = sql(s"SELECT * FROM $t")
        rowsOf(df) shouldBe Seq("[1,ours,1]", "[2,theirs,2]")
        ScanMetrics.of(df)("badRowKeys") shouldBe 2
        withClue("in the region servers, as in Spark: ") {
          val counted = sql(s"SELECT count(*), sum(n) FROM $t")
          collectWithSubqueries(counted.queryExecution.executedPlan) { case a: HBaseAggregateScan => a } should
            have size 1
          counted.collect().head shouldBe Row(2L, 3L)
          ScanMetrics.of(counted)("badRowKeys") shouldBe 2
          rowsOf(sql(s"SELECT k FROM $t WHERE n >= 1")) shouldBe Seq("[1]", "[2]")
        }
      }
      val aggregated = intercept[Exception](sql(s"SELECT count(*) FROM $t").collect())
      HBaseSQLException.causeOf(aggregated).map(_.getMessage).getOrElse(aggregated.getMessage) should
        include("is not a row of the table: a cell in one of its packed families is not a well-formed packed cell")
      val malformed = intercept[Exception](sql(s"SELECT * FROM $t WHERE k = 4").collect())
      HBaseSQLException.causeOf(malformed).map(_.getMessage).getOrElse("") should include("malformed")
      withClue("a region server passes such a row to Spark rather than judge it by values it cannot read: ") {
        val filtered = intercept[Exception](sql(s"SELECT k FROM $t WHERE n >= 1 AND k >= 4").collect())
        HBaseSQLException.causeOf(filtered).map(_.getMessage).getOrElse("") should include("malformed")
      }
    }
  }

  describe("LAYOUT in CREATE TABLE") {
    it("is refused with a clear error where it cannot apply") {
      def failure(statement: String) = intercept[HBaseSQLException](sql(statement)).getMessage
      failure(s"CREATE TABLE ${uniqueName("bad")} (k STRING, v STRING, PRIMARY KEY (k)) MAPPED BY (x, COLS=[v=f.v]) " +
        "IN StringFormat LAYOUT PACKED") should include("LAYOUT PACKED stores values in the Binary format")
      failure(s"CREATE TABLE ${uniqueName("bad")} (k INT, PRIMARY KEY (k)) MAPPED BY (x) LAYOUT PACKED") should
        include("the table maps none")
      failure(s"CREATE TABLE ${uniqueName("bad")} (k INT, v INT, PRIMARY KEY (k)) MAPPED BY (x, COLS=[v=f.v]) " +
        "LAYOUT ROWS") should include("Unknown table layout 'ROWS'")
    }

    it(
      "is spark.sql.hbase.create.layout's where the statement names none and makes the HBase table: PACKED unless set"
    ) {
      val (made, using, selected) = (uniqueName("setlayout"), uniqueName("setusing"), uniqueName("setctas"))
      sql(s"CREATE TABLE $made (k INT, v STRING, w BIGINT, PRIMARY KEY (k)) MAPPED BY ($made, COLS=[w=f.w, v=f.v])")
      // Spark's CREATE TABLE, and CREATE TABLE ... AS SELECT, the same.
      sql(s"CREATE TABLE hbase.$using (k INT, v STRING) USING hbase OPTIONS (primaryKey 'k')")
      sql(s"INSERT INTO $made VALUES (1, 'one', 10), (2, NULL, 20)")
      sql(s"CREATE TABLE hbase.$selected USING hbase OPTIONS (primaryKey 'k') AS SELECT k, v FROM $made")
      layoutOf(made) shouldBe "PACKED"
      definitionOf(made).packedSlots shouldBe Map("f" -> Seq("w", "v")) // in COLS order
      withTable(made)(_.get(new Get(keys.encode(Seq(1)))).rawCells().map(_.getQualifierLength).toSeq) shouldBe Seq(0)
      sql(s"SHOW CREATE TABLE $made").head().getString(0) should include("LAYOUT PACKED")
      layoutOf(using) shouldBe "PACKED"
      layoutOf(selected) shouldBe "PACKED"
      rowsOf(s"SELECT * FROM $selected") shouldBe Seq("[1,one]", "[2,null]")

      // Where packed cannot hold the table, or the statement or the setting says otherwise: CELLS.
      val text = uniqueName("defaulttext")
      sql(s"CREATE TABLE $text (k STRING, v STRING, PRIMARY KEY (k)) MAPPED BY ($text, COLS=[v=f.v]) IN StringFormat")
      layoutOf(text) shouldBe "CELLS"
      val keyOnly = uniqueName("defaultkeyonly")
      sql(s"CREATE TABLE $keyOnly (k INT, PRIMARY KEY (k)) MAPPED BY ($keyOnly)")
      layoutOf(keyOnly) shouldBe "CELLS"
      val named = uniqueName("defaultnamed")
      sql(s"CREATE TABLE $named (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($named, COLS=[v=f.v]) LAYOUT CELLS")
      layoutOf(named) shouldBe "CELLS"
      sql(s"INSERT INTO $named VALUES (1, 'one')")
      withTable(named)(_.get(new Get(keys.encode(Seq(1)))).rawCells()
        .map(c => Bytes.toString(org.apache.hadoop.hbase.CellUtil.cloneQualifier(c))).toSeq) shouldBe Seq("v")
      val (set, setUsing) = (uniqueName("setcells"), uniqueName("setcellsusing"))
      withConf(HBaseSQLConf.CreateLayout.key -> "cells") {
        sql(s"CREATE TABLE $set (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($set, COLS=[v=f.v])")
        sql(s"CREATE TABLE hbase.$setUsing (k INT, v STRING) USING hbase OPTIONS (primaryKey 'k')")
      }
      layoutOf(set) shouldBe "CELLS"
      layoutOf(setUsing) shouldBe "CELLS"
      intercept[IllegalArgumentException](withConf(HBaseSQLConf.CreateLayout.key -> "rows")(())).getMessage should
        include(HBaseSQLConf.CreateLayout.key)
    }

    it("over an existing HBase table reads its rows as stored: packed in the slots of a table that maps them packed") {
      val wide = uniqueName("twin")
      sql(s"""CREATE TABLE $wide (k INT, a STRING, b BIGINT, c STRING, PRIMARY KEY (k))
             |MAPPED BY ($wide, COLS=[a=f.a, b=f.b, c=g.c]) LAYOUT PACKED""".stripMargin)
      sql(s"INSERT INTO $wide VALUES (1, 'x', 10, 'p'), (2, 'y', NULL, 'q')")
      // Its columns in another order, with or without LAYOUT: the values are where the wide table's slots say.
      for (layout <- Seq("", "LAYOUT PACKED")) withClue(s"'$layout': ") {
        val other = uniqueName("twinother")
        sql(
          s"CREATE TABLE $other (id INT, bb BIGINT, aa STRING, PRIMARY KEY (id)) MAPPED BY ($wide, COLS=[bb=f.b, aa=f.a]) $layout"
        )
        layoutOf(other) shouldBe "PACKED"
        definitionOf(other).packedSlots shouldBe Map("f" -> Seq("a", "b"))
        rowsOf(s"SELECT * FROM $other") shouldBe Seq("[1,10,x]", "[2,null,y]")
        sql(s"DROP TABLE $other")
      }
      def refusal(statement: String) = intercept[HBaseSQLException](sql(statement)).getMessage
      val bad = uniqueName("twinbad")
      refusal(
        s"CREATE TABLE $bad (k INT, a STRING, PRIMARY KEY (k)) MAPPED BY ($wide, COLS=[a=f.a]) LAYOUT CELLS"
      ) shouldBe
        s"CREATE TABLE $bad: HBase table '$wide' keeps family 'f' packed, as table '$wide' maps it, and this " +
        "table cannot read packed cells: leave LAYOUT out or say LAYOUT PACKED, in the Binary format"
      refusal(s"CREATE TABLE $bad (k INT, z STRING, PRIMARY KEY (k)) MAPPED BY ($wide, COLS=[z=f.z])") shouldBe
        s"CREATE TABLE $bad: HBase table '$wide' keeps family 'f' packed, in the slots table '$wide' gives it " +
        "(a, b), and none holds qualifier 'z'"
      metadata.TableDefinitionStores.of(spark).entry(bad) shouldBe None

      // Once no table maps it, the catalog's record of its last packed mapping tells the slots.
      val gone = uniqueName("twingone")
      val store = metadata.TableDefinitionStores.of(spark)
      val goneTable = metadata.HBaseTableName("default", gone)
      sql(
        s"CREATE TABLE $gone (k INT, a STRING, b STRING, PRIMARY KEY (k)) MAPPED BY ($gone, COLS=[a=f.a, b=f.b]) LAYOUT PACKED"
      )
      sql(s"INSERT INTO $gone VALUES (5, 'five', 'v')")
      sql(s"ALTER TABLE $gone ADD COLUMN c INT MAPPED BY (c = f.c)")
      sql(s"INSERT INTO $gone VALUES (6, 'six', 'vi', 6)")
      sql(s"DROP TABLE $gone")
      store.packedSlots(goneTable) shouldBe Some(Map("f" -> Seq("a", "b", "c")))
      sql(s"CREATE TABLE $gone (k INT, c INT, a STRING, PRIMARY KEY (k)) MAPPED BY ($gone, COLS=[c=f.c, a=f.a])")
      layoutOf(gone) shouldBe "PACKED"
      rowsOf(s"SELECT * FROM $gone") shouldBe Seq("[5,null,five]", "[6,6,six]")
      // Without the record (a table an older version made), or with one this version cannot read: the
      // statement must name the layout.
      sql(s"DROP TABLE $gone")
      store.forgetPackedSlots(goneTable)
      refusal(s"CREATE TABLE $gone (k INT, a STRING, PRIMARY KEY (k)) MAPPED BY ($gone, COLS=[a=f.a])") should
        include("was made for packed rows and neither a table nor the catalog's record tells their slots")
      withTable(store.metaTable.getNameAsString)(_.put(new Put(metadata.PackedSlotsRecord.rowKey(goneTable))
        .addColumn(Bytes.toBytes("d"), Bytes.toBytes("packedSlots"), Bytes.toBytes("{\"version\":9}"))))
      refusal(s"CREATE TABLE $gone (k INT, a STRING, PRIMARY KEY (k)) MAPPED BY ($gone, COLS=[a=f.a])") should
        include("was made for packed rows and neither a table nor the catalog's record tells their slots")
      sql(
        s"CREATE TABLE $gone (k INT, a STRING, b STRING, PRIMARY KEY (k)) MAPPED BY ($gone, COLS=[a=f.a, b=f.b]) LAYOUT PACKED"
      )
      rowsOf(s"SELECT k, a FROM $gone") shouldBe Seq("[5,five]", "[6,six]")
      store.packedSlots(goneTable) shouldBe Some(Map("f" -> Seq("a", "b")))
      // PURGE forgets the record with the HBase table.
      val purged = uniqueName("twinpurged")
      sql(s"CREATE TABLE $purged (k INT, a STRING, PRIMARY KEY (k)) MAPPED BY ($purged, COLS=[a=f.a]) LAYOUT PACKED")
      store.packedSlots(metadata.HBaseTableName("default", purged)) shouldBe Some(Map("f" -> Seq("a")))
      sql(s"DROP TABLE $purged PURGE")
      store.packedSlots(metadata.HBaseTableName("default", purged)) shouldBe None

      // Rows a cell a column stay so.
      val existing = uniqueName("defaultexisting")
      withAdmin(_.createTable(TableDescriptorBuilder.newBuilder(TableName.valueOf(existing))
        .setColumnFamily(org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder.of("f")).build()))
      withTable(existing)(_.put(new Put(keys.encode(Seq(7))).addColumn(
        Bytes.toBytes("f"),
        Bytes.toBytes("v"),
        Bytes.toBytes("seven")
      )))
      withConf(HBaseSQLConf.CreateLayout.key -> "packed") {
        sql(s"CREATE TABLE $existing (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($existing, COLS=[v=f.v])")
      }
      layoutOf(existing) shouldBe "CELLS"
      rowsOf(s"SELECT * FROM $existing") shouldBe Seq("[7,seven]")
    }
    it("is the layout option of Spark's own CREATE TABLE USING hbase") {
      val t = uniqueName("usingpacked")
      sql(s"CREATE TABLE hbase.$t (k INT, v STRING) USING hbase OPTIONS (primaryKey 'k', layout 'packed')")
      sql(s"INSERT INTO hbase.$t VALUES (1, 'a'), (2, NULL)")
      rowsOf(s"SELECT * FROM hbase.$t") shouldBe Seq("[1,a]", "[2,null]")
      sql(s"SHOW CREATE TABLE hbase.$t").head().getString(0) should include("LAYOUT PACKED")
    }
  }
}
