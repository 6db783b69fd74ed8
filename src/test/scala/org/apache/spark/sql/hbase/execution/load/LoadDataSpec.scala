// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}

import org.apache.spark.sql.hbase.{HBaseSuite, Waits, commands, execution, metadata}
import org.apache.spark.sql.Row
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/** LOAD DATA into HBase tables as HFiles, against the real HBase. */
class LoadDataSpec extends HBaseSuite {
  private def csv(name: String, lines: String*): Path = {
    val dir = Files.createTempDirectory("load-data")
    val file = dir.resolve(name)
    Files.write(file, lines.mkString("", "\n", "\n").getBytes(StandardCharsets.UTF_8))
    file
  }

  private def table(splits: String = ""): String = {
    val t = uniqueName("load")
    sql(s"""CREATE TABLE $t (id INT, name STRING, born DATE, score DECIMAL(5,2), PRIMARY KEY (id))
           |MAPPED BY ($t, COLS=[name=f.n, born=f.b, score=g.s]) $splits""".stripMargin)
    t
  }

  /** What the staging directory holds: a load leaves nothing behind there. */
  private def staged: Seq[String] = {
    val conf = cluster.toConfiguration
    val dir = execution.load.BulkLoad.stagingRoot(conf)
    val fs = dir.getFileSystem(conf)
    if (!fs.exists(dir)) Nil
    else fs.listStatus(dir).map(_.getPath.getName).filter(_.startsWith(execution.load.BulkLoad.StagingPrefix)).toSeq
  }

  describe("LOAD DATA INPATH") {
    it("loads a CSV file with a header, quotes and NULLs, as Spark's CSV reader reads it, into every region") {
      val t = table("SPLIT ON ((10), (20))")
      val file = csv(
        "people.csv",
        "id,name,born,score",
        "1,\"Smith, Ann\",1990-01-02,12.50",
        "15,Bo,,3",
        "",
        "25,\"say \"\"hi\"\"\",2001-12-31,",
        "7,,1970-01-01,0.01"
      )
      sql(s"LOAD DATA LOCAL INPATH '$file' INTO TABLE $t OPTIONS (header 'true', escape '\"')").collect().toSeq shouldBe
        Seq(Row(4L, 0L))
      sql(s"SELECT * FROM $t").collect().toSeq shouldBe Seq(
        Row(1, "Smith, Ann", java.sql.Date.valueOf("1990-01-02"), BigDecimal("12.50").bigDecimal),
        Row(7, null, java.sql.Date.valueOf("1970-01-01"), BigDecimal("0.01").bigDecimal),
        Row(15, "Bo", null, BigDecimal("3.00").bigDecimal),
        Row(25, "say \"hi\"", java.sql.Date.valueOf("2001-12-31"), null)
      )
      val bySpark =
        spark.read.option("header", "true").option("escape", "\"").schema(spark.table(t).schema).csv(file.toString)
      sql(s"SELECT * FROM $t").collect().toSet shouldBe bySpark.collect().toSet
      withConf(HBaseSQLConf.ScanTaskMaxBytes.key -> "0")(sql(s"SELECT * FROM $t").rdd.getNumPartitions shouldBe 3)
      staged shouldBe empty
    }

    it("is idempotent, lets the last of equal keys win, and replaces a loaded row whole") {
      val t = table()
      sql(s"INSERT INTO $t VALUES (1, 'old', DATE'2000-01-01', 1.00)")
      val file = csv("dups.txt", "1|first|2000-01-01|1", "2|two||2", "1|last||")
      val load = s"LOAD DATA LOCAL INPATH '$file' INTO TABLE $t FIELDS TERMINATED BY '|'"
      sql(load).head() shouldBe Row(2L, 0L)
      sql(load).head() shouldBe Row(2L, 0L)
      sql(s"SELECT * FROM $t").collect().toSeq shouldBe
        Seq(Row(1, "last", null, null), Row(2, "two", null, BigDecimal("2.00").bigDecimal))
    }

    it("with PARALLEL, loads from each task, with the same result") {
      val t = table("SPLIT ON ((100))")
      val lines = (1 to 300).map(i => s"$i,n$i,2020-01-01,${i % 100}")
      sql(s"LOAD DATA PARALLEL LOCAL INPATH '${csv("many.csv", lines: _*)}' INTO TABLE $t").head() shouldBe
        Row(300L, 0L)
      sql(s"SELECT count(*), sum(id), min(name) FROM $t").head() shouldBe Row(300L, (1 to 300).sum.toLong, "n1")
      staged shouldBe empty
    }

    it("writes each family's HFiles with the family's compression, encoding, block size and bloom filter") {
      import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder
      import org.apache.hadoop.hbase.io.compress.Compression
      import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding
      import org.apache.hadoop.hbase.io.hfile.{CacheConfig, HFile}
      import org.apache.hadoop.hbase.regionserver.{BloomType, HStoreFile}
      val t = table()
      val name = org.apache.hadoop.hbase.TableName.valueOf(t)
      withAdmin(_.modifyColumnFamily(
        name,
        ColumnFamilyDescriptorBuilder.newBuilder(org.apache.hadoop.hbase.util.Bytes.toBytes("f"))
          .setDataBlockEncoding(DataBlockEncoding.FAST_DIFF).setCompressionType(Compression.Algorithm.GZ)
          .setBloomFilterType(BloomType.ROWCOL).setBlocksize(4096).build()
      ))
      val lines = (1 to 500).map(i => s"$i,name $i,2020-01-01,${i % 100}")
      sql(s"LOAD DATA LOCAL INPATH '${csv("stored.csv", lines: _*)}' INTO TABLE $t").head() shouldBe Row(500L, 0L)
      sql(s"SELECT count(*), max(name), sum(score) FROM $t").head() shouldBe
        Row(500L, "name 99", BigDecimal((1 to 500).map(_ % 100).sum).setScale(2).bigDecimal)

      val conf = cluster.toConfiguration
      val tableDir = org.apache.hadoop.hbase.util.CommonFSUtils.getTableDir(
        org.apache.hadoop.hbase.util.CommonFSUtils.getRootDir(conf),
        name
      )
      val fs = tableDir.getFileSystem(conf)
      def storeFiles(family: String) = fs.listStatus(tableDir).filter(_.isDirectory).flatMap { region =>
        val dir = new org.apache.hadoop.fs.Path(region.getPath, family)
        if (fs.exists(dir))
          fs.listStatus(dir).filter(f => f.isFile && !f.getPath.getName.startsWith(".")).map(_.getPath).toSeq
        else Seq.empty[org.apache.hadoop.fs.Path]
      }.toSeq
      def stored(path: org.apache.hadoop.fs.Path) = {
        val reader = HFile.createReader(fs, path, CacheConfig.DISABLED, true, conf)
        try {
          // A file does not record its block size, but its data block count shows it.
          (
            reader.getFileContext.getCompression,
            reader.getDataBlockEncoding,
            reader.getTrailer.getDataIndexCount > 4,
            Option(reader.getHFileInfo.get(HStoreFile.BLOOM_FILTER_TYPE_KEY)).map(b =>
              BloomType.valueOf(org.apache.hadoop.hbase.util.Bytes.toString(b))
            )
          )
        } finally reader.close()
      }
      storeFiles("f") should not be empty
      // 500 names and dates, about 40 KB before compression: over 4 blocks of 4 KB, and 500 scores in one of 64 KB.
      storeFiles("f").map(stored).distinct shouldBe
        Seq((Compression.Algorithm.GZ, DataBlockEncoding.FAST_DIFF, true, Some(BloomType.ROWCOL)))
      storeFiles("g").map(stored).distinct shouldBe
        Seq((Compression.Algorithm.NONE, DataBlockEncoding.NONE, false, Some(BloomType.ROW)))
    }

    it("takes a directory, and date formats from OPTIONS") {
      val t = table()
      val file = csv("a.csv", "1;x;02/01/1990;1")
      Files.write(file.getParent.resolve("b.csv"), "2;y;31/12/1999;2\n".getBytes(StandardCharsets.UTF_8))
      sql(
        s"LOAD DATA LOCAL INPATH '${file.getParent}' INTO TABLE $t FIELDS TERMINATED BY ';' OPTIONS (dateFormat 'dd/MM/yyyy')"
      )
        .head() shouldBe Row(2L, 0L)
      sql(s"SELECT id, born FROM $t").collect().toSeq shouldBe
        Seq(Row(1, java.sql.Date.valueOf("1990-01-02")), Row(2, java.sql.Date.valueOf("1999-12-31")))
    }
  }

  describe("a bad file") {
    it("fails the whole load before anything is loaded, naming the line and the value") {
      Seq(false, true).foreach { parallel =>
        val t = table("SPLIT ON ((5))")
        val file = csv("bad.csv", "1,a,2020-01-01,1", "9,b,2020-01-01,2", "3,c,2020-13-45,3", "4,d,2020-01-01,4")
        val error = intercept[HBaseSQLException] {
          sql(s"LOAD DATA ${if (parallel) "PARALLEL " else ""}LOCAL INPATH '$file' INTO TABLE $t").collect()
        }
        error.getMessage should include(s"$file line 3: column 'born' value '2020-13-45' is not a DATE")
        sql(s"SELECT count(*) FROM $t").head().getLong(0) shouldBe 0
        staged shouldBe empty
        // In key order, the first region's files are written before the bad row shows, and not loaded.
        val inOrder = csv("bad-last.csv", (1 to 7).map(i => s"$i,a,2020-01-01,1") :+ "8,h,2020-02-30,8": _*)
        intercept[HBaseSQLException] {
          sql(s"LOAD DATA ${if (parallel) "PARALLEL " else ""}LOCAL INPATH '$inOrder' INTO TABLE $t").collect()
        }.getMessage should include(s"$inOrder line 8: column 'born' value '2020-02-30' is not a DATE")
        sql(s"SELECT count(*) FROM $t").head().getLong(0) shouldBe 0
        staged shouldBe empty
      }
    }

    it("with PARALLEL, leaves loaded what was loaded before the bad row: rows in key order are loaded run by run") {
      // Keys 1 to 7, then a second run from key 0 whose second row is bad.
      val file = csv(
        "second-run-bad.csv",
        (1 to 7).map(i => s"$i,a,2020-01-01,1") ++ Seq("0,z,2020-01-01,0", "9,y,2020-02-30,9"): _*
      )
      Seq((false, 0L, "nothing was loaded"), (true, 7L, "rows before it may have been loaded")).foreach {
        case (parallel, left, said) =>
          val t = table("SPLIT ON ((5))")
          intercept[HBaseSQLException] {
            sql(s"LOAD DATA ${if (parallel) "PARALLEL " else ""}LOCAL INPATH '$file' INTO TABLE $t").collect()
          }.getMessage should include(s"$file line 9: column 'born' value '2020-02-30' is not a DATE; $said")
          sql(s"SELECT count(*) FROM $t").head().getLong(0) shouldBe left
          staged shouldBe empty
      }
    }

    it("fails on a missing key and on a field count other than the table's") {
      val t = table()
      val missing = csv("nokey.csv", "1,a,,", ",b,,")
      intercept[HBaseSQLException](sql(s"LOAD DATA LOCAL INPATH '$missing' INTO TABLE $t").collect())
        .getMessage should include("line 2: key column 'id' is empty")
      val wide = csv("wide.csv", "1,a,,,extra")
      intercept[HBaseSQLException](sql(s"LOAD DATA LOCAL INPATH '$wide' INTO TABLE $t").collect())
        .getMessage should include("line 1: 5 fields, more than the table's 4 columns")
      val narrow = csv("narrow.csv", "1,a,,", "", "# not a comment without the option", "2,b")
      intercept[HBaseSQLException](sql(s"LOAD DATA LOCAL INPATH '$narrow' INTO TABLE $t").collect())
        .getMessage should include("line 3: 1 field, fewer than the table's 4 columns")
      intercept[HBaseSQLException](
        sql(s"LOAD DATA LOCAL INPATH '$narrow' INTO TABLE $t OPTIONS (comment '#')").collect()
      )
        .getMessage should include("line 4: 2 fields, fewer than the table's 4 columns")
      sql(s"SELECT count(*) FROM $t").head().getLong(0) shouldBe 0
    }

    it("with onBadRow 'skip', loads the good rows and reports how many it skipped") {
      val t = table()
      val file = csv("some-bad.csv", "1,a,,1", "x,b,,2", "3,c,,not a number", "4,d,,4")
      sql(s"LOAD DATA LOCAL INPATH '$file' INTO TABLE $t OPTIONS (onBadRow 'skip')").head() shouldBe Row(2L, 2L)
      sql(s"SELECT id FROM $t").collect().map(_.getInt(0)).toSeq shouldBe Seq(1, 4)
      // Out of key order after a bad row: the rows are read twice, the bad one counted once.
      val unsorted = csv("unsorted-bad.csv", "9,d,,4", "x,b,,2", "8,a,,1")
      sql(s"LOAD DATA LOCAL INPATH '$unsorted' INTO TABLE $t OPTIONS (onBadRow 'skip')").head() shouldBe Row(2L, 1L)
    }

    it("writes input already in key order from each partition without a shuffle, and shuffles input that is not") {
      def shuffled(body: => Unit): Long = {
        val bytes = new java.util.concurrent.atomic.AtomicLong()
        val listener = new org.apache.spark.scheduler.SparkListener {
          override def onTaskEnd(e: org.apache.spark.scheduler.SparkListenerTaskEnd): Unit =
            Option(e.taskMetrics).foreach(m => bytes.addAndGet(m.shuffleWriteMetrics.bytesWritten))
        }
        listening(listener)(body)
        bytes.get()
      }
      def files(names: (String, Seq[Int])*): Path = {
        val dir = Files.createTempDirectory("load-runs")
        names.foreach { case (name, ids) =>
          Files.write(
            dir.resolve(name),
            ids.map(i => s"$i,$name$i,,1").mkString("", "\n", "\n").getBytes(StandardCharsets.UTF_8)
          )
        }
        dir
      }
      def load(t: String, dir: Path) = sql(s"LOAD DATA LOCAL INPATH '$dir' INTO TABLE $t").head()

      // Two files in key order, each one partition, each crossing a region boundary.
      val inOrder = table("SPLIT ON ((100), (200))")
      shuffled(load(inOrder, files("a" -> (1 to 150), "b" -> (151 to 300))) shouldBe Row(300L, 0L)) shouldBe 0L
      sql(s"SELECT count(*), min(name), max(name) FROM $inOrder").head() shouldBe Row(300L, "a1", "b300")
      staged shouldBe empty

      // Each file in key order, but the second repeats a key of the first: shuffled, and its row wins.
      val sharedKey = table("SPLIT ON ((100))")
      shuffled(load(sharedKey, files("a" -> (1 to 150), "b" -> (150 to 160))) shouldBe Row(160L, 0L)) should be > 0L
      sql(s"SELECT name FROM $sharedKey WHERE id = 150").head().getString(0) shouldBe "b150"

      // Two runs of ascending keys in one file, the second lower: each written as it comes.
      val twoRuns = table("SPLIT ON ((100))")
      shuffled(load(twoRuns, files("r" -> ((101 to 200) ++ (1 to 100)))) shouldBe Row(200L, 0L)) shouldBe 0L
      sql(s"SELECT count(*), sum(id) FROM $twoRuns").head() shouldBe Row(200L, (1 to 200).sum.toLong)

      val backwards = table("SPLIT ON ((100))")
      shuffled(load(backwards, files("c" -> (200 to 1 by -1))) shouldBe Row(200L, 0L)) should be > 0L
      sql(s"SELECT count(*), sum(id) FROM $backwards").head() shouldBe Row(200L, (1 to 200).sum.toLong)
      staged shouldBe empty
    }

    it("or bad options and paths get a message naming them") {
      val t = table()
      val file = csv("ok.csv", "1,a,,1")
      def message(statement: String): String = intercept[HBaseSQLException](sql(statement).collect()).getMessage
      message(s"LOAD DATA LOCAL INPATH '/no/such/file.csv' INTO TABLE $t") should
        include("'/no/such/file.csv': no such file")
      message(s"LOAD DATA LOCAL INPATH '$file' INTO TABLE $t OPTIONS (onBadRow 'ignore')") should
        include("onBadRow is 'fail' or 'skip'")
      message(s"LOAD DATA LOCAL INPATH '$file' OVERWRITE INTO TABLE $t") should include("OVERWRITE")
      message(s"LOAD DATA LOCAL INPATH '$file' INTO TABLE no_such_table_here FIELDS TERMINATED BY ','") should
        include("no HBase table 'no_such_table_here'")
      sql(s"SELECT count(*) FROM $t").head().getLong(0) shouldBe 0
    }
  }

  /** The metrics of the LOAD DATA node of a statement's executed plan, by name. */
  private def loadMetrics(statement: org.apache.spark.sql.DataFrame)
      : Map[String, org.apache.spark.sql.execution.metric.SQLMetric] = {
    val executed = statement.queryExecution.executedPlan match {
      case result: org.apache.spark.sql.execution.CommandResultExec => result.commandPhysicalPlan
      case other => other
    }
    executed.collectFirst {
      case org.apache.spark.sql.execution.command.ExecutedCommandExec(load: commands.LoadDataCommand) =>
        load.metrics
    }.getOrElse(fail(s"no LOAD DATA node in the plan:\n$executed"))
  }

  /** The sizes of the HFiles in the regions of a table made by `table()`. */
  private def storeFileSizes(t: String): Seq[Long] = {
    val conf = cluster.toConfiguration
    val name = org.apache.hadoop.hbase.TableName.valueOf(t)
    val tableDir = org.apache.hadoop.hbase.util.CommonFSUtils.getTableDir(
      org.apache.hadoop.hbase.util.CommonFSUtils.getRootDir(conf),
      name
    )
    val fs = tableDir.getFileSystem(conf)
    for {
      region <- fs.listStatus(tableDir).toSeq if region.isDirectory && !region.getPath.getName.startsWith(".")
      family <- fs.listStatus(region.getPath).toSeq if Set("f", "g").contains(family.getPath.getName)
      file <- fs.listStatus(family.getPath).toSeq if file.isFile && !file.getPath.getName.startsWith(".")
    } yield file.getLen
  }

  describe("the progress of a load") {
    // Keys 1 to 20 in order, three lines of them bad: 17 rows into two regions of two families each.
    def input(): Path = csv(
      "progress.csv",
      (1 to 20).map { i =>
        if (i % 7 == 0) s"$i,bad,2020-13-45,1" else if (i == 10) "ten,bad,,1" else s"$i,n$i,2020-01-01,$i"
      }: _*
    )

    it(
      "shows as SQL metrics on its node of the plan and in the SQL tab: rows read, loaded and skipped, HFiles, bytes and regions"
    ) {
      Seq(false, true).foreach { parallel =>
        withClue(if (parallel) "PARALLEL: " else "") {
          val t = table("SPLIT ON ((10))")
          val statement =
            sql(s"LOAD DATA ${if (parallel) "PARALLEL " else ""}LOCAL INPATH '${input()}' INTO TABLE $t " +
              "OPTIONS (onBadRow 'skip')")
          statement.head() shouldBe Row(17L, 3L)
          sql(s"SELECT count(*) FROM $t").head().getLong(0) shouldBe 17L
          val stored = storeFileSizes(t)
          stored should have size 4
          val metrics = loadMetrics(statement)
          metrics.map { case (name, metric) => name -> metric.value } -- Seq("writeTime", "loadTime") shouldBe Map(
            "rowsRead" -> 20L,
            "badRows" -> 3L,
            "rowsSkipped" -> 3L,
            "rowsLoaded" -> 17L,
            "regionsLoaded" -> 2L,
            "hfilesWritten" -> 4L,
            "bytesWritten" -> stored.sum
          )
          metrics("writeTime").value should be > 0L
          metrics("loadTime").value should be > 0L

          // The SQL tab adds up what the tasks reported and what the driver posted.
          spark.sparkContext.listenerBus.waitUntilEmpty()
          val store = spark.sharedState.statusStore
          val load = store.executionsList().find(_.metrics.exists(_.accumulatorId == metrics("rowsLoaded").id))
            .getOrElse(fail("the SQL tab has no LOAD DATA"))
          val shown = store.executionMetrics(load.executionId)
          Seq(
            "rowsRead" -> "20",
            "badRows" -> "3",
            "rowsSkipped" -> "3",
            "rowsLoaded" -> "17",
            "regionsLoaded" -> "2",
            "hfilesWritten" -> "4"
          ).foreach { case (name, value) => (name -> shown(metrics(name).id)) shouldBe (name -> value) }
        }
      }
    }

    it("counts the rows of input out of key order as read twice, and its bad rows as skipped once") {
      val t = table("SPLIT ON ((10))")
      // Descending keys: a run per row, too many to write without sorting.
      val file =
        csv("descending.csv", (40 to 1 by -1).map(i => if (i % 10 == 0) s"$i,bad,2020-13-45,1" else s"$i,n$i,,$i"): _*)
      val statement = sql(s"LOAD DATA LOCAL INPATH '$file' INTO TABLE $t OPTIONS (onBadRow 'skip')")
      statement.head() shouldBe Row(36L, 4L)
      val metrics = loadMetrics(statement)
      metrics("rowsRead").value should be > 40L
      metrics("badRows").value should be > 4L
      (metrics("rowsSkipped").value, metrics("rowsLoaded").value, metrics("regionsLoaded").value) shouldBe
        ((4L, 36L, 2L))
    }

    it("describes its Spark jobs by the load and the table, and puts back the description it found") {
      val t = table()
      val descriptions = new java.util.concurrent.ConcurrentLinkedQueue[String]()
      val listener = new org.apache.spark.scheduler.SparkListener {
        override def onJobStart(e: org.apache.spark.scheduler.SparkListenerJobStart): Unit =
          Option(e.properties).flatMap(p => Option(p.getProperty("spark.job.description"))).foreach(descriptions.add)
      }
      spark.sparkContext.setJobDescription("the caller's own")
      try {
        val descending = csv("descending.csv", (40 to 1 by -1).map(i => s"$i,n$i,,$i"): _*)
        listening(listener) {
          sql(s"LOAD DATA LOCAL INPATH '${input()}' INTO TABLE $t OPTIONS (onBadRow 'skip')").collect()
          sql(s"LOAD DATA PARALLEL LOCAL INPATH '$descending' INTO TABLE $t").collect()
        }
        spark.sparkContext.getLocalProperty("spark.job.description") shouldBe "the caller's own"
      } finally spark.sparkContext.setJobDescription(null)
      import scala.jdk.CollectionConverters._
      descriptions.asScala.toSeq should contain allOf
        (
          s"LOAD DATA into $t: writing HFiles",
          s"LOAD DATA into $t: writing and loading HFiles",
          s"LOAD DATA into $t: input not in key order, sorting it and writing and loading HFiles"
        )
    }
  }

  /**
   * Runs `body` on HFiles for rows 1 to `rows` of table `t` (name n<i>, score i), written outside
   * LOAD DATA into a staging directory of their own, which is removed afterwards.
   */
  private def withStagedHFiles(t: String, rows: Int)(body: Map[String, org.apache.hadoop.fs.Path] => Unit): Unit = {
    val conf = cluster.toConfiguration
    val staging = new org.apache.hadoop.fs.Path(execution.load.BulkLoad.stagingRoot(conf), s"test-${System.nanoTime()}")
    val rowCodec = new org.apache.spark.sql.hbase.codec.RowCodec(metadata.TableDefinitionStores.of(spark).get(t).get)
    val keyed = (1 to rows).map { i =>
      val row = org.apache.spark.sql.catalyst.InternalRow(
        i,
        org.apache.spark.unsafe.types.UTF8String.fromString(s"n$i"),
        null,
        org.apache.spark.sql.types.Decimal(BigDecimal(i).setScale(2), 5, 2)
      )
      (execution.load.LoadKey(rowCodec.rowKey(row), i.toLong), rowCodec.cellValues(row))
    }
    val storage = execution.load.FamilyStorage.of(cluster, org.apache.hadoop.hbase.TableName.valueOf(t))
    val files = new execution.load.RegionHFiles(
      conf,
      staging,
      rowCodec,
      storage,
      "written-by-test",
      System.currentTimeMillis(),
      recorded = None,
      indexCells = None,
      execution.load.LoadMetrics.unshown(spark.sparkContext)
    )
    try {
      files.write(keyed.iterator) shouldBe rows
      body(files.close())
    } finally staging.getFileSystem(conf).delete(staging, true)
  }

  private def bulkLoad(t: String, files: Map[String, org.apache.hadoop.fs.Path]): Unit =
    execution.load.RegionHFiles.bulkLoad(
      cluster,
      org.apache.hadoop.hbase.TableName.valueOf(t),
      files.map { case (family, path) => family -> Seq(path) }
    )

  describe("a region that splits between writing the HFiles and loading them") {
    it("is handled: HBase's loader splits the file again, and every row arrives") {
      val t = table()
      // HFiles written for the one region the table has now...
      withStagedHFiles(t, 100) { written =>
        // ...then the region splits in two before they are loaded.
        val name = org.apache.hadoop.hbase.TableName.valueOf(t)
        withAdmin { admin =>
          admin.split(
            name,
            new org.apache.spark.sql.hbase.codec.RowCodec(metadata.TableDefinitionStores.of(
              spark
            ).get(t).get).keyCodec.encode(Seq(50))
          )
          Waits.until(s"$t split in two regions, both available") {
            admin.getRegions(name).size >= 2 && admin.isTableAvailable(name)
          }
          admin.getRegions(name).size shouldBe 2
        }
        bulkLoad(t, written)
      }
      sql(s"SELECT count(*), sum(id), sum(score) FROM $t").head() shouldBe
        Row(100L, 5050L, BigDecimal("5050.00").bigDecimal)
      withConf(HBaseSQLConf.ScanTaskMaxBytes.key -> "0")(sql(s"SELECT * FROM $t").rdd.getNumPartitions shouldBe 2)
    }
  }

  describe("the embedded HBase") {
    it("moves staged HFiles into their regions, as HBase on HDFS does, instead of copying them") {
      val t = table()
      def inode(file: java.nio.file.Path): AnyRef = Files.getAttribute(file, "unix:ino")
      withStagedHFiles(t, 10) { written =>
        val staged = written.values.map(p => inode(java.nio.file.Paths.get(p.toUri.getPath))).toSet
        staged should have size 2
        bulkLoad(t, written)
        val rootDir = cluster.toConfiguration.get("hbase.rootdir")
        val tableDir = java.nio.file.Paths.get(new org.apache.hadoop.fs.Path(rootDir, s"data/default/$t").toUri.getPath)
        val stored =
          Files.walk(tableDir).filter(Files.isRegularFile(_)).toArray.map(f => inode(f.asInstanceOf[Path])).toSet
        staged.subsetOf(stored) shouldBe true
      }
      sql(s"SELECT count(*), sum(id) FROM $t").head() shouldBe Row(10L, 55L)
    }
  }

  describe("the DataFrame route") {
    it("bulk-loads with option(\"bulkload\", \"true\")") {
      val t = table("SPLIT ON ((50))")
      spark.range(0, 100).selectExpr(
        "CAST(id AS INT) AS id",
        "concat('p', id) AS name",
        "CAST(NULL AS DATE) AS born",
        "CAST(id AS DECIMAL(5,2)) AS score"
      )
        .write.format("hbase").option("table", t).option("bulkload", "true").mode("append").save()
      sql(s"SELECT count(*), sum(score) FROM $t").head() shouldBe Row(100L, BigDecimal("4950.00").bigDecimal)
    }
  }
}
