// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import java.nio.file.Files
import java.util.concurrent.{Executors, TimeUnit}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Delete, Put, Scan}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.{HBaseSuite, Waits}
import org.apache.spark.sql.hbase.codec.{BinaryKeyCodec, BinaryValueCodec, RowCodec}
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}
import org.apache.spark.sql.hbase.execution.ScanMetrics
import org.apache.spark.sql.hbase.execution.load.{FamilyStorage, LoadKey, LoadMetrics, RegionHFiles}
import org.apache.spark.sql.hbase.metadata.TableDefinitionStores
import org.apache.spark.sql.hbase.server.ServerJar
import org.apache.spark.sql.types.LongType
import org.apache.spark.unsafe.types.UTF8String

/**
 * CREATE, SHOW, DESCRIBE and DROP of global indexes against real HBase: an index built on a
 * populated table holds exactly the rows its data gives, writes made during the build included,
 * and every failed statement leaves no metadata, no HBase table and no observer behind. The
 * expected index rows are worked out here from the layout in docs/indexes.md and the data as
 * HBase holds it, not by the code under test.
 */
class GlobalIndexStatementsSpec extends HBaseSuite {
  private val f = Bytes.toBytes("f")
  private val g = Bytes.toBytes("g")

  /** Users keyed by id: email (NULL for every 7th), age (NULL for every 5th) in family f, name in g. */
  private def users(rows: Int, layout: String = "CELLS"): String = {
    val t = uniqueName("users")
    sql(s"""CREATE TABLE $t (id BIGINT, email STRING, age BIGINT, name STRING, PRIMARY KEY (id))
           |MAPPED BY ($t, COLS=[email=f.email, age=f.age, name=g.name]) LAYOUT $layout
           |SPLIT ON ((${rows / 4}), (${rows / 2}), (${3 * rows / 4}))""".stripMargin)
    sql(s"""INSERT INTO $t SELECT id, IF(id % 7 = 0, NULL, CONCAT('u', (id * 7919) % $rows, '@x')),
           |IF(id % 5 = 0, NULL, id % 90), CONCAT('name ', id) FROM range($rows)""".stripMargin)
    t
  }

  private def indexTable(table: String, index: String): String = s"$table.$index.idx"

  private def keyOf(id: Long): Array[Byte] = new BinaryKeyCodec(Seq(LongType)).encode(Seq(id))

  // The index row key, from docs/indexes.md: per indexed column 0x00 for NULL, else 0x01 and the
  // value's order-preserving bytes (text escaped and terminated; a BIGINT big-endian with its sign
  // bit flipped); then the data row key. No row when every indexed column is NULL.
  private def textPart(value: Option[Array[Byte]]): Array[Byte] = value match {
    case None => Array[Byte](0)
    case Some(v) => Array[Byte](1) ++ v.flatMap(b => if (b == 0) Array[Byte](0, -1) else Array(b)) ++ Array[Byte](0, 0)
  }

  private def longPart(value: Option[Array[Byte]]): Array[Byte] = value match {
    case Some(v) => Array[Byte](1) ++ Bytes.toBytes(Bytes.toLong(v) ^ Long.MinValue)
    case None => Array[Byte](0)
  }

  /** An index row: its key, then each cell but the status as "family:qualifier" -> value. */
  private type IndexRows = Map[String, Map[String, String]]

  private def cellsOf(r: org.apache.hadoop.hbase.client.Result, skipFamily: String): Map[String, String] =
    r.rawCells().toSeq.map { c =>
      (
        Bytes.toString(c.getFamilyArray, c.getFamilyOffset, c.getFamilyLength),
        Bytes.toString(c.getQualifierArray, c.getQualifierOffset, c.getQualifierLength),
        Bytes.toStringBinary(c.getValueArray, c.getValueOffset, c.getValueLength)
      )
    }.collect { case (family, qualifier, value) if family != skipFamily => s"$family:$qualifier" -> value }.toMap

  /** The index rows of a CELLS table of [[users]] by (email) covering name, and by (age, email). */
  private def expected(table: String): (IndexRows, IndexRows) = withTable(table) { t =>
    val rows = t.getScanner(new Scan()).asScala.toSeq
    val byEmail = rows.flatMap { r =>
      Option(r.getValue(f, Bytes.toBytes("email"))).map { e =>
        Bytes.toStringBinary(textPart(Some(e)) ++ r.getRow) ->
          Option(r.getValue(g, Bytes.toBytes("name"))).map(n => "g:name" -> Bytes.toStringBinary(n)).toMap
      }
    }.toMap
    val byAgeEmail = rows.flatMap { r =>
      val (a, e) = (Option(r.getValue(f, Bytes.toBytes("age"))), Option(r.getValue(f, Bytes.toBytes("email"))))
      if (a.isEmpty && e.isEmpty) None
      else Some(Bytes.toStringBinary(longPart(a) ++ textPart(e) ++ r.getRow) -> Map.empty[String, String])
    }.toMap
    (byEmail, byAgeEmail)
  }

  /** The rows of an index table, but its marks (rows starting 0xFF); every one must be VERIFIED. */
  private def actual(indexTable: String): IndexRows = withTable(indexTable) { t =>
    t.getScanner(new Scan().withStopRow(Array[Byte](-1))).asScala.map { r =>
      withClue(s"index row ${Bytes.toStringBinary(r.getRow)}: ")(
        r.getValue(Bytes.toBytes("_s"), Bytes.toBytes("s")).toSeq shouldBe Seq[Byte](1)
      )
      Bytes.toStringBinary(r.getRow) -> cellsOf(r, "_s")
    }.toMap
  }

  private def observed(table: String): Boolean =
    withAdmin(_.getDescriptor(TableName.valueOf(table)).hasCoprocessor(ServerJar.INDEX_MAINTENANCE_OBSERVER))

  private def showIndexes(table: String): Seq[Row] = sql(s"SHOW INDEXES ON $table").collect().toSeq

  describe("CREATE INDEX ... USING global") {
    it("builds an index of the rows a table has, which SHOW INDEXES and DESCRIBE list and every writer keeps") {
      val t = users(1000)
      sql(s"CREATE INDEX by_email ON TABLE $t USING global (email) OPTIONS (include 'name')")
      sql(s"CREATE INDEX by_age_email ON $t USING GLOBAL (age, email)")
      val (byEmail, byAgeEmail) = expected(t)
      byEmail.size shouldBe 1000 - 143 // every 7th email is NULL
      actual(indexTable(t, "by_email")) shouldBe byEmail
      actual(indexTable(t, "by_age_email")) shouldBe byAgeEmail
      withClue("split from the data's values, as the data table is: ")(
        withAdmin(_.getRegions(TableName.valueOf(indexTable(t, "by_email"))).size) shouldBe 4
      )
      withClue("loaded as HFiles, not written row by row through the region servers: ") {
        val regions = regionMetrics(indexTable(t, "by_email"))
        regions.map(_.getStoreFileCount).sum should be > 0
        regions.map(_.getWriteRequestCount).sum should be < 10L // the build's mark, not its 857 rows
      }
      showIndexes(t) shouldBe Seq(
        Row("by_email", "global", "email", null, null, null, "ready", "name", 857L),
        Row("by_age_email", "global", "age, email", null, null, null, "ready", "", byAgeEmail.size.toLong)
      )
      val described = sql(s"DESCRIBE $t").collect().map(r => (r.getString(0), r.getString(1))).toMap
      described("Global index by_email") shouldBe "global (email) include (name)"
      described("Global index by_age_email") shouldBe "global (age, email)"

      sql(s"UPDATE $t SET email = 'changed@x', name = 'renamed' WHERE id IN (1, 2, 14)")
      sql(s"DELETE FROM $t WHERE id BETWEEN 500 AND 520")
      withTable(t)(_.put(new Put(keyOf(3)).addColumn(f, Bytes.toBytes("age"), BinaryValueCodec.encode(LongType, 7L))
        .addColumn(f, Bytes.toBytes("email"), Bytes.toBytes("plain@x"))))
      val (afterEmail, afterAgeEmail) = expected(t)
      actual(indexTable(t, "by_email")) shouldBe afterEmail
      actual(indexTable(t, "by_age_email")) shouldBe afterAgeEmail
      afterEmail.values.count(_.get("g:name").contains("renamed")) shouldBe 3
    }

    it("keeps every write a plain client makes while the index is built") {
      val t = users(4000)
      val stop = new AtomicBoolean(false)
      val writes = new AtomicInteger()
      val pool = Executors.newSingleThreadExecutor()
      val writer = pool.submit(new Runnable {
        def run(): Unit = withTable(t) { table =>
          var i = 0
          while (!stop.get() || writes.get() < 200) {
            val id = (i * 7727L) % 4000
            if (i % 9 == 0) table.delete(new Delete(keyOf(id)))
            else table.put(new Put(keyOf(id)).addColumn(f, Bytes.toBytes("email"), Bytes.toBytes(s"w$i@x"))
              .addColumn(g, Bytes.toBytes("name"), Bytes.toBytes(s"writer $i")))
            writes.incrementAndGet()
            i += 1
          }
        }
      })
      try {
        Waits.until("the writer has begun")(writes.get() > 0)
        sql(s"CREATE INDEX by_email ON $t USING global (email) OPTIONS (include 'name')")
        withClue("the writer ran during the build: ")(writes.get() should be > 0)
      } finally stop.set(true)
      writer.get(120, TimeUnit.SECONDS)
      pool.shutdown()
      actual(indexTable(t, "by_email")) shouldBe expected(t)._1
    }

    it("copies a packed table's covered family as its packed cell, under the keys a cells table gets") {
      val packed = users(400, "PACKED")
      val cells = users(400)
      Seq(packed, cells).foreach(t => sql(s"CREATE INDEX by_email ON $t USING global (email) OPTIONS (include 'name')"))
      val packedRows = actual(indexTable(packed, "by_email"))
      packedRows.keySet shouldBe actual(indexTable(cells, "by_email")).keySet
      val packedNames = withTable(packed)(_.getScanner(new Scan().addFamily(g)).asScala.map { r =>
        Bytes.toStringBinary(r.getRow) -> Bytes.toStringBinary(r.getValue(g, Array.emptyByteArray))
      }.toMap)
      val copied = withTable(indexTable(packed, "by_email"))(_.getScanner(new Scan().addFamily(g)).asScala.map { r =>
        val dataRow = r.getRow.takeRight(8) // a BIGINT key is 8 bytes
        Bytes.toStringBinary(dataRow) -> Bytes.toStringBinary(r.getValue(g, Array.emptyByteArray))
      }.toSeq)
      copied.size shouldBe packedRows.size
      copied.foreach { case (dataRow, cell) => withClue(s"data row $dataRow: ")(cell shouldBe packedNames(dataRow)) }
      packedRows.values.foreach(_.keySet shouldBe Set("g:"))
    }

    it("refuses a bad statement, naming the part at fault, and leaves nothing behind") {
      val t = users(40)
      sql(s"CREATE INDEX by_age ON $t USING minmax (age)")
      Seq(
        s"CREATE INDEX i ON $t USING global (nope)" ->
          s"CREATE INDEX i ON $t: column 'nope' does not exist in table '$t'",
        s"CREATE INDEX i ON $t USING global (id)" -> "'id' is a key column",
        s"CREATE INDEX i ON $t USING global (email, EMAIL)" -> "column 'email' is named twice",
        s"CREATE INDEX i ON $t USING global (email) OPTIONS (include 'nope')" ->
          s"covered column 'nope' does not exist in table '$t'",
        s"CREATE INDEX i ON $t USING global (email) OPTIONS (include 'email')" -> "'email' is both indexed and covered",
        s"CREATE INDEX i ON $t USING global (email) OPTIONS (chunkRows = 5)" ->
          "unknown option 'chunkRows' for USING global; the one option is include",
        s"CREATE INDEX by_age ON $t USING global (email)" -> s"table '$t' already has an index 'by_age'",
        s"CREATE INDEX `a/b` ON $t USING global (email)" -> "choose another index name"
      ).foreach { case (statement, message) =>
        withClue(statement)(intercept[HBaseSQLException](sql(statement)).getMessage should include(message))
      }
      showIndexes(t).map(_.getString(0)) shouldBe Seq("by_age")
      withAdmin(_.listTableNames().map(_.getNameAsString).filter(_.startsWith(s"$t."))) shouldBe empty
      observed(t) shouldBe false
    }

    it("undoes every step of a statement that fails midway, and deletes no table it did not make") {
      val t = users(40)
      createHBaseTable(indexTable(t, "by_email"), Seq("x"))
      intercept[HBaseSQLException](sql(s"CREATE INDEX by_email ON $t USING global (email)")).getMessage should include(
        s"HBase table '${indexTable(t, "by_email")}', which would hold the index, already exists"
      )
      hbaseTableExists(indexTable(t, "by_email")) shouldBe true
      TableDefinitionStores.of(spark).get(t).get.globalIndexes shouldBe empty
      observed(t) shouldBe false
    }
  }

  describe("CHECK INDEX") {
    it("reports missing, extra, stale and unverified index rows, and REPAIR makes the index exact again") {
      val t = users(200)
      sql(s"CREATE INDEX by_email ON $t USING global (email) OPTIONS (include 'name')")
      def check(repair: Boolean = false): Row =
        sql(s"CHECK INDEX by_email ON TABLE $t${if (repair) " REPAIR" else ""}").collect().head
      val exact = expected(t)._1
      check() shouldBe Row("by_email", exact.size.toLong, exact.size.toLong, 0L, 0L, 0L, 0L, 0L, 0L, "")

      // Damage by hand, each kind once, newer than the build's rows and older than any write from now on.
      val keys = actual(indexTable(t, "by_email")).keys.toSeq.sorted.map(Bytes.toBytesBinary)
      val status = Bytes.toBytes("_s")
      val s = Bytes.toBytes("s")
      val later = System.currentTimeMillis()
      withTable(indexTable(t, "by_email")) { index =>
        index.delete(new Delete(keys(0))) // missing
        index.put(new Put(keys(1), later).addColumn(g, Bytes.toBytes("name"), Bytes.toBytes("wrong"))) // stale
        index.put(new Put(keys(2), later).addColumn(status, s, Array[Byte](0))) // unverified, right key
        val dataRow = keys(3).takeRight(8)
        index.put(new Put(textPart(Some(Bytes.toBytes("nobody@x"))) ++ dataRow, later)
          .addColumn(status, s, Array[Byte](1))) // extra, VERIFIED
        index.put(new Put(textPart(Some(Bytes.toBytes("leftover@x"))) ++ dataRow, later)
          .addColumn(status, s, Array[Byte](0))) // unverified, a key the row does not give
        index.put(new Put(Bytes.toBytes("\u0007junk"), later).addColumn(status, s, Array[Byte](1))) // extra, no row
      }
      val damaged = check()
      (3 to 7).map(damaged.getLong) shouldBe Seq(1L, 2L, 1L, 2L, 0L)
      (damaged.getLong(1), damaged.getLong(2)) shouldBe ((exact.size.toLong, exact.size.toLong + 2))
      damaged.getString(9) should include("missing")
      damaged.getString(9) should include("stale")

      val repaired = check(repair = true)
      (3 to 7).map(repaired.getLong) shouldBe Seq(1L, 2L, 1L, 2L, 5L) // four data rows, and the key that names none
      check() shouldBe Row("by_email", exact.size.toLong, exact.size.toLong, 0L, 0L, 0L, 0L, 0L, 0L, "")
      actual(indexTable(t, "by_email")) shouldBe exact
    }

    it("sees a bulk load that bypassed the index: queries read its regions whole until REPAIR makes them exact") {
      val t = users(200)
      sql(s"CREATE INDEX by_email ON $t USING global (email) OPTIONS (include 'name')")
      val table = TableDefinitionStores.of(spark).get(t).get
      val codec = new RowCodec(table)
      // As a tool that knows nothing of the index would: HFiles of new rows, and one row changed.
      val files = new RegionHFiles(
        cluster.toConfiguration,
        new Path(Files.createTempDirectory("outside-load").toUri),
        codec,
        FamilyStorage.of(cluster, TableName.valueOf(t)),
        "outside",
        System.currentTimeMillis(),
        recorded = None,
        indexCells = None,
        LoadMetrics.unshown(spark.sparkContext)
      )
      val loaded = (Seq(3L) ++ (1000L until 1010L)).map { id =>
        val row = InternalRow(id, UTF8String.fromString(s"bulk$id@x"), null, UTF8String.fromString("bulk"))
        (LoadKey(codec.rowKey(row), id), codec.cellValues(row))
      }
      files.write(loaded.sortWith((a, b) => Bytes.compareTo(a._1.rowKey, b._1.rowKey) < 0).iterator)
      val oldEmailOf3 = sql(s"SELECT email FROM $t WHERE id = 3").collect().head.getString(0)
      RegionHFiles.bulkLoad(
        cluster,
        TableName.valueOf(t),
        files.close().map { case (f, p) =>
          f -> Seq(p)
        }
      )

      def ids(where: String): Seq[Long] = sql(s"SELECT id FROM $t WHERE $where").collect().map(_.getLong(0)).toSeq
      val lookup = sql(s"SELECT id FROM $t WHERE email IN ('bulk3@x', 'bulk1005@x', '$oldEmailOf3')")
      lookup.queryExecution.executedPlan.toString should include("global index by_email")
      lookup.collect()
      ScanMetrics.of(lookup)("untrustedRegions") shouldBe 2
      ids("email IN ('bulk3@x', 'bulk1005@x', '" + oldEmailOf3 + "')").sorted shouldBe Seq(3L, 1005L)
      ids("email BETWEEN 'bulk' AND 'bulkz'").sorted shouldBe Seq(3L) ++ (1000L until 1010L)

      val before = sql(s"CHECK INDEX by_email ON $t").collect().head
      (before.getLong(3), before.getLong(8)) shouldBe ((11L, 2L)) // the first region (id 3) and the last (1000 on)
      sql(s"CHECK INDEX by_email ON $t REPAIR").collect().head.getLong(8) shouldBe 0L
      val after = sql(s"CHECK INDEX by_email ON $t").collect().head
      (3 to 8).map(after.getLong) shouldBe Seq(0L, 0L, 0L, 0L, 0L, 0L)
      ids("email IN ('bulk3@x', 'bulk1005@x', '" + oldEmailOf3 + "')").sorted shouldBe Seq(3L, 1005L)
      actual(indexTable(t, "by_email")) shouldBe expected(t)._1
    }

    it("refuses a range index and an index that does not exist, naming them") {
      val t = users(20)
      sql(s"CREATE INDEX by_age ON $t USING minmax (age)")
      intercept[HBaseSQLException](sql(s"CHECK INDEX by_age ON $t")).getMessage shouldBe
        s"CHECK INDEX by_age ON $t: 'by_age' is a range index; CHECK INDEX checks global indexes"
      intercept[HBaseSQLException](sql(s"CHECK INDEX nope ON $t REPAIR")).getMessage shouldBe
        s"CHECK INDEX nope ON $t REPAIR: table '$t' has no index 'nope'"
    }
  }

  describe("LOAD DATA") {

    /** CSV rows of [[users]] (id, email, age, name), "" for NULL, loaded by `load` into `t`. */
    def load(t: String, statement: String, rows: Seq[String]): Unit = {
      val file = Files.createTempFile("users", ".csv")
      Files.write(file, rows.mkString("", "\n", "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8))
      sql(statement.replace("$file", file.toString).replace("$t", t)).collect()
    }
    // Changed values (3, 20), a value now NULL (10) and one no longer NULL (7, 14), a covered
    // column now NULL (21), a row whose indexed columns are all NULL now (35), new rows (1000 on).
    val changes = Seq(
      "3,moved3@x,33,three",
      "10,,11,ten",
      "20,u20@x,99,twenty",
      "7,seven@x,,seven",
      "14,fourteen@x,5,",
      "21,u21@x,1,",
      "35,,,nothing"
    ) ++ (1000 until 1040).map(i => s"$i,new$i@x,${i % 90},new $i")

    it("keeps every global index exact: the new index rows land before the data, the old ones go after") {
      val t = users(200)
      sql(s"CREATE INDEX by_email ON $t USING global (email) OPTIONS (include 'name')")
      sql(s"CREATE INDEX by_age_email ON $t USING global (age, email)")
      load(t, "LOAD DATA LOCAL INPATH '$file' INTO TABLE $t", changes)
      val (byEmail, byAgeEmail) = expected(t)
      actual(indexTable(t, "by_email")) shouldBe byEmail
      actual(indexTable(t, "by_age_email")) shouldBe byAgeEmail
      val checked = sql(s"CHECK INDEX by_email ON $t").collect().head
      (3 to 8).map(checked.getLong) shouldBe Seq(0L, 0L, 0L, 0L, 0L, 0L)
      sql(s"SELECT id FROM $t WHERE email IN ('moved3@x', 'new1005@x', 'u190@x')").collect().map(_.getLong(0))
        .sorted shouldBe Seq(3L, 1005L)
    }

    it("has covering reads check its index rows against the data until CHECK INDEX finds them exact") {
      val t = users(200)
      sql(s"CREATE INDEX by_email ON $t USING global (email) OPTIONS (include 'name')")
      // No window for rows changed just before a read (IndexReadsDuringWritesSpec): nothing writes during these reads.
      def lookup(email: String): (Seq[Row], Long) = withConf(HBaseSQLConf.GlobalIndexRecentWrites.key -> "0") {
        Waits.afterNow()
        val df = sql(s"SELECT id, email, name FROM $t WHERE email = '$email'")
        (df.collect().toSeq, ScanMetrics.of(df)("gets"))
      }
      withClue("built index rows are trusted: ")(lookup("u190@x") shouldBe ((Seq(Row(10L, "u190@x", "name 10")), 0L)))
      load(t, "LOAD DATA LOCAL INPATH '$file' INTO TABLE $t", changes)
      // A row as a writer racing the load could leave: VERIFIED, at the load's timestamp, for a value row 1005 lacks.
      val loadTimestamps = withTable(indexTable(t, "by_email")) { index =>
        val marks = "\u00ffloads".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1) // docs/indexes.md
        Option(index.get(new org.apache.hadoop.hbase.client.Get(marks)).rawCells()).toSeq.flatten
          .filter(_.getQualifierLength == 8).map(c => Bytes.toLong(c.getQualifierArray, c.getQualifierOffset))
      }
      loadTimestamps should have size 1
      withTable(indexTable(t, "by_email")) { index =>
        index.put(new Put(textPart(Some(Bytes.toBytes("forged@x"))) ++ keyOf(1005), loadTimestamps.head)
          .addColumn(Bytes.toBytes("_s"), Bytes.toBytes("s"), Array[Byte](1))
          .addColumn(g, Bytes.toBytes("name"), Bytes.toBytes("forged")))
      }
      withClue("a loaded row is read from the data: ")(lookup("forged@x") shouldBe ((Nil, 1L)))
      lookup("new1005@x") shouldBe ((Seq(Row(1005L, "new1005@x", "new 1005")), 1L))
      withClue("a check that finds damage trusts nothing more: ")(sql(s"CHECK INDEX by_email ON $t").head().getLong(4)
        shouldBe 1L)
      lookup("new1005@x")._2 shouldBe 1L
      sql(s"CHECK INDEX by_email ON $t REPAIR").collect()
      withClue("after a repair, the loaded rows are trusted: ")(lookup("new1005@x") shouldBe
        ((Seq(Row(1005L, "new1005@x", "new 1005")), 0L)))
      lookup("forged@x") shouldBe ((Nil, 0L))
    }

    it("keeps them with PARALLEL, in a packed table, and where the input has a key twice") {
      val t = users(200, "PACKED")
      sql(s"CREATE INDEX by_email ON $t USING global (email) OPTIONS (include 'name')")
      load(t, "LOAD DATA PARALLEL LOCAL INPATH '$file' INTO TABLE $t", changes ++ Seq("1001,twice@x,1,again"))
      val cells = users(200)
      sql(s"CREATE INDEX by_email ON $cells USING global (email) OPTIONS (include 'name')")
      load(cells, "LOAD DATA LOCAL INPATH '$file' INTO TABLE $t", changes ++ Seq("1001,twice@x,1,again"))
      actual(indexTable(t, "by_email")).keySet shouldBe actual(indexTable(cells, "by_email")).keySet
      actual(indexTable(cells, "by_email")) shouldBe expected(cells)._1
      val checked = sql(s"CHECK INDEX by_email ON $t").collect().head
      (3 to 8).map(checked.getLong) shouldBe Seq(0L, 0L, 0L, 0L, 0L, 0L)
      sql(s"SELECT id, name FROM $t WHERE email = 'twice@x'").collect().toSeq shouldBe Seq(Row(1001L, "again"))
    }
  }

  describe("cells that expire (a column family TTL)") {
    it(
      "leave index rows that name rows no longer there: queries drop them, CHECK INDEX counts them extra, REPAIR deletes them"
    ) {
      val t = uniqueName("expiring")
      sql(s"CREATE TABLE $t (id BIGINT, email STRING, PRIMARY KEY (id)) MAPPED BY ($t, COLS=[email=f.email])")
      withAdmin { admin =>
        admin.modifyColumnFamily(
          TableName.valueOf(t),
          org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder.newBuilder(f).setTimeToLive(8).build()
        )
      }
      sql(s"CREATE INDEX by_email ON $t USING global (email)")
      sql(s"INSERT INTO $t SELECT id, CONCAT('e', id % 2, '@x') FROM range(6)")
      actual(indexTable(t, "by_email")).size shouldBe 6
      Waits.until("the cells have expired", seconds = 60, everyMs = 250)(
        sql(s"SELECT count(*) FROM $t").head().getLong(0) == 0
      )
      withClue("no write saw them go, so the index still names them: ")(actual(indexTable(t, "by_email")).size shouldBe
        6)
      val lookup = sql(s"SELECT /*+ INDEX($t, by_email) */ id FROM $t WHERE email = 'e1@x'")
      lookup.collect() shouldBe empty
      ScanMetrics.of(lookup)("indexRowsRead") shouldBe 3
      val checked = sql(s"CHECK INDEX by_email ON $t").collect().head
      (checked.getLong(1), checked.getLong(4)) shouldBe ((0L, 6L)) // no data rows, six extra index rows
      sql(s"CHECK INDEX by_email ON $t REPAIR").collect()
      actual(indexTable(t, "by_email")) shouldBe empty
    }
  }

  describe("cells given a TTL of their own by the writer (Mutation.setTTL)") {
    it("leave their index rows UNVERIFIED, so covering reads check them against the data and drop them once gone") {
      val t = uniqueName("own_ttl")
      sql(
        s"CREATE TABLE $t (id BIGINT, email STRING, name STRING, PRIMARY KEY (id)) MAPPED BY ($t, COLS=[email=f.email, name=g.name]) LAYOUT CELLS"
      )
      sql(s"CREATE INDEX by_email ON $t USING global (email) OPTIONS (include 'name')")
      sql(s"INSERT INTO $t VALUES (1, 'a@x', 'kept')")
      withTable(t)(_.put(new Put(keyOf(2)).addColumn(f, Bytes.toBytes("email"), Bytes.toBytes("a@x"))
        .addColumn(g, Bytes.toBytes("name"), Bytes.toBytes("brief")).setTTL(4000L)))
      val statuses = withTable(indexTable(t, "by_email")) { index =>
        index.getScanner(new Scan().withStopRow(Array[Byte](-1))).asScala.map { r =>
          val id = Bytes.toLong(r.getRow.takeRight(8)) ^ Long.MinValue
          id -> r.getValue(Bytes.toBytes("_s"), Bytes.toBytes("s")).toSeq
        }.toMap
      }
      statuses shouldBe Map(1L -> Seq[Byte](1), 2L -> Seq[Byte](0))
      val query = s"SELECT /*+ INDEX($t, by_email) */ id, name FROM $t WHERE email = 'a@x'"
      sql(query).queryExecution.executedPlan.toString should include("covering global index by_email")
      sql(query).collect().sortBy(_.getLong(0)).toSeq shouldBe Seq(Row(1L, "kept"), Row(2L, "brief"))
      Waits.until("the cells given their own TTL have expired", seconds = 60, everyMs = 250)(
        sql(s"SELECT /*+ NO_INDEX($t) */ count(*) FROM $t WHERE email = 'a@x'").head().getLong(0) == 1
      )
      withClue("the expired row's index row is still there: ")(
        withTable(indexTable(
          t,
          "by_email"
        ))(_.getScanner(new Scan().withStopRow(Array[Byte](-1))).asScala.size) shouldBe 2
      )
      sql(query).collect().toSeq shouldBe Seq(Row(1L, "kept"))
    }
  }

  describe("DROP INDEX and DROP TABLE") {
    it("delete the index's HBase table and stop its maintenance once no index is left") {
      val t = users(40)
      sql(s"CREATE INDEX by_email ON $t USING global (email)")
      sql(s"CREATE INDEX by_age ON $t (age) INCLUDE (name)") // Phoenix's spelling
      showIndexes(t).map(r => (r.getString(0), r.getString(1), r.getString(7))) shouldBe
        Seq(("by_email", "global", ""), ("by_age", "global", "name"))
      sql(s"DROP INDEX by_email ON $t")
      hbaseTableExists(indexTable(t, "by_email")) shouldBe false
      observed(t) shouldBe true
      sql(s"DROP INDEX IF EXISTS by_email ON $t")
      sql(s"INSERT INTO $t VALUES (100, 'new@x', 30, 'new')")
      actual(indexTable(t, "by_age")).size shouldBe 41 - 8 // every 5th age is NULL
      sql(s"DROP INDEX by_age ON $t")
      observed(t) shouldBe false
      hbaseTableExists(indexTable(t, "by_age")) shouldBe false
      sql(s"INSERT INTO $t VALUES (101, 'newer@x', 31, 'newer')")
      sql(s"SELECT count(*) FROM $t").collect().head.getLong(0) shouldBe 42

      sql(s"CREATE INDEX by_name ON $t USING global (name)")
      sql(s"DROP TABLE $t")
      hbaseTableExists(indexTable(t, "by_name")) shouldBe false
      withClue("the mapped HBase table stays, without the observer: ")(observed(t) shouldBe false)
    }
  }
}
