// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import java.util.concurrent.atomic.AtomicInteger

import scala.util.Random

import org.apache.hadoop.hbase.client.Put
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.hbase.{DifferentialCases, HBaseSuite, RandomClauses}
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.hbase.execution.{DriverAggregate, HBaseTableScan, IndexOrderLimit, ScanMetrics}
import org.apache.spark.sql.types.LongType

/**
 * Global indexes against the truth: random WHERE clauses over indexed and unindexed columns
 * return exactly what Spark returns over the same rows held in memory, with the indexes used and
 * unused (their ranges read by one scan a region, or cut into parts read at once), on a table
 * of one cell per column and on its LAYOUT PACKED twin; the rows were written
 * before the indexes were built, and changed after, by SQL and by a plain HBase client.
 */
class GlobalIndexDifferentialSpec extends HBaseSuite with DifferentialCases with AdaptiveSparkPlanHelper {
  private val rows = 3000
  private val suiteCases = 100
  private val cases = randomCases(inTheSuite = suiteCases)

  private val words = Seq("", "a", "ab", "abc", "b", "ba", "é", "zz", "a\u0000b", "x" * 40)

  /** The cells table, its packed twin and the truth, a view of their rows in Spark's memory. */
  private def tables(): (String, String, String) = {
    val t = uniqueName("people")
    val packed = s"${t}_packed"
    val random = new Random(17)
    def maybeNull[T](value: => T): T = if (random.nextInt(7) == 0) null.asInstanceOf[T] else value
    val data = (0 until rows).map { i =>
      Row(
        i.toLong,
        maybeNull(s"u${random.nextInt(rows / 3)}@x"),
        maybeNull(Integer.valueOf(random.nextInt(60))),
        maybeNull(words(random.nextInt(words.size))),
        maybeNull(new java.math.BigDecimal(random.nextInt(5000)).movePointLeft(2)),
        maybeNull(java.sql.Date.valueOf(java.time.LocalDate.of(2024, 1, 1).plusDays(random.nextInt(400)))),
        maybeNull(java.lang.Double.valueOf(random.nextInt(100) / 4.0))
      )
    }
    for ((name, layout) <- Seq(t -> "CELLS", packed -> "PACKED")) {
      sql(s"""CREATE TABLE $name (id BIGINT, email STRING, age INT, tag STRING, score DECIMAL(10, 2), born DATE,
             |w DOUBLE, PRIMARY KEY (id))
             |MAPPED BY ($name, COLS=[email=f.email, age=f.age, tag=g.tag, score=f.score, born=g.born, w=g.w])
             |LAYOUT $layout SPLIT ON ((${rows / 4}), (${rows / 2}), (${3 * rows / 4}))""".stripMargin)
      spark.createDataFrame(spark.sparkContext.parallelize(data, 4), spark.table(name).schema).write.insertInto(name)
      sql(s"CREATE INDEX by_email ON $name USING global (email) OPTIONS (include 'age')")
      sql(s"CREATE INDEX by_age_tag ON $name USING global (age, tag)")
      sql(s"CREATE INDEX by_born ON $name USING global (born, score)")
      sql(s"CREATE INDEX by_w ON $name USING global (w)")
      // Changed after the builds, by SQL and by a client that knows nothing of the indexes.
      sql(s"UPDATE $name SET email = 'changed@x', age = 7 WHERE id % 97 = 0")
      sql(s"DELETE FROM $name WHERE id % 89 = 0")
    }
    val key = new BinaryKeyCodec(Seq(LongType))
    withTable(t) { table =>
      for (id <- 1L until rows by 101) {
        table.put(new Put(key.encode(Seq(id))).addColumn(
          Bytes.toBytes("f"),
          Bytes.toBytes("email"),
          Bytes.toBytes(s"plain$id@x")
        ))
      }
    }
    for (id <- 1L until rows by 101) sql(s"UPDATE $packed SET email = 'plain$id@x' WHERE id = $id")
    Seq(t, packed).foreach(flushed)
    val truth = spark.table(t).collect().toSeq
    withClue("the twins hold the same rows: ")(spark.table(packed).collect().toSeq.map(_.toString).sorted shouldBe
      truth.map(_.toString).sorted)
    (t, packed, sharedView(s"${t}_truth", truth, spark.table(t).schema))
  }

  private def randomPredicate(random: Random): String = {
    def pick[T](options: T*): T = options(random.nextInt(options.size))
    def op = pick("=", "=", "<", "<=", ">", ">=", "<>", "<=>")
    def email = s"'u${random.nextInt(rows / 3)}@x'"
    def word = s"'${words(random.nextInt(words.size)).replace("\u0000", "\\u0000")}'"
    def date = s"DATE '${java.time.LocalDate.of(2024, 1, 1).plusDays(random.nextInt(420) - 10)}'"
    def atom: String = random.nextInt(12) match {
      case 0 | 1 => s"email $op $email"
      case 2 => pick(
          s"email IN ($email, $email, $email)",
          "email LIKE 'u1%'",
          "email = 'changed@x'",
          "email IS NULL",
          "email LIKE 'plain%'"
        )
      case 3 => s"age $op ${random.nextInt(62) - 1}"
      case 4 => s"age = ${random.nextInt(60)} AND tag $op $word"
      case 5 => pick("tag IS NULL", "age IS NULL", s"age IN (1, 2, NULL)", s"tag IN ($word, $word)")
      case 6 => s"born $op $date"
      case 7 => s"born = $date AND score $op ${random.nextInt(50)}.${random.nextInt(100)}"
      case 8 => s"w $op ${random.nextInt(26)}.${pick(0, 25, 5)}"
      case 9 => pick(
          s"id < ${random.nextInt(rows)}",
          s"id = ${random.nextInt(rows)}",
          "age + 1 = 8",
          "coalesce(email, 'none') = 'none'"
        )
      case _ => s"email BETWEEN $email AND $email"
    }
    RandomClauses.nested(random, 2)(atom)
  }

  /**
   * A WHERE clause that by_email's ranges bound (an email atom, ANDed with others of email or of
   * the columns its rows hold: age, which it covers, and id, the key), which its region servers
   * may aggregate under.
   */
  private def emailPredicate(random: Random): String = {
    def pick[T](options: T*): T = options(random.nextInt(options.size))
    def email = s"'u${random.nextInt(rows / 3)}@x'"
    def bound = pick(
      s"email = $email",
      s"email IN ($email, $email, $email)",
      s"email BETWEEN $email AND $email",
      "email LIKE 'u1%'",
      "email = 'changed@x'",
      "email LIKE 'plain%'",
      s"email > $email AND email < 'u2'"
    )
    def other = pick(
      s"age ${pick("=", "<", ">=", "<>")} ${random.nextInt(62) - 1}",
      "age IS NULL",
      s"id ${pick("<", ">")} ${random.nextInt(rows)}",
      s"(age < 10 OR id > ${random.nextInt(rows)})"
    )
    random.nextInt(3) match {
      case 0 => bound
      case 1 => s"$bound AND $other"
      case _ => s"($bound) AND (${RandomClauses.nested(random, 1)(other)})"
    }
  }

  private def sorted(df: DataFrame): Seq[String] = df.collect().toSeq.map(_.toString).sorted

  private def throughIndex(df: DataFrame): Boolean =
    df.queryExecution.executedPlan.collectFirst { case s: HBaseTableScan => s.plan.indexLookup.isDefined }
      .getOrElse(false)

  /** Whether a collect of `df`, once run, aggregated on the driver (a covering or small read under it). */
  private def aggregatedOnDriver(df: DataFrame): Boolean =
    collectFirst(df.queryExecution.executedPlan) { case _: DriverAggregate => true }.getOrElse(false)

  /** Whether the read through the index of `df` cuts its ranges into parts read at once. */
  private def readInParts(df: DataFrame): Boolean =
    df.queryExecution.executedPlan.collectFirst { case s: HBaseTableScan =>
      s.plan.indexLookup.exists(_.splits.nonEmpty)
    }
      .getOrElse(false)

  private def covering(df: DataFrame): Boolean =
    df.queryExecution.executedPlan.collectFirst { case s: HBaseTableScan => s.plan.indexLookup.exists(_.covering) }
      .getOrElse(false)

  /** The columns of one index with the key, which a covering read of that index answers alone. */
  private val indexColumns = Seq("id, email, age", "id, age, tag", "id, born, score", "id, w", "email, age")

  private lazy val people = tables()

  describe(s"$cases random WHERE clauses over a table with global indexes") {
    it("return exactly Spark's rows with the indexes used and unused, half of them over its LAYOUT PACKED twin") {
      val (cells, packed, truthView) = people
      val (viaIndex, covered, driverAggregates) = (new AtomicInteger(), new AtomicInteger(), new AtomicInteger())
      val inParts = new AtomicInteger()
      val (inIndexServers, indexAggregates) = (new AtomicInteger(), new AtomicInteger())
      val failures = failedCases(cases, seed = 211) { (n, random, session) =>
        val (layout, t) = if (n % 2 == 0) ("LAYOUT PACKED", packed) else ("LAYOUT CELLS", cells)
        // Half the reads through an index cut each region's ranges into as many parts as they may be cut into (each
        // read by a scan of its own), the other half read them by one scan a region.
        val parts = if (n % 4 < 2) "1" else "0"
        def withParts[T](body: => T): T = withConf(session)(HBaseSQLConf.GlobalIndexReadPartBytes.key -> parts)(body)
        def readThroughIndex(query: String): (DataFrame, Seq[String]) = withParts {
          val df = session.sql(query)
          val rows = sorted(df)
          if (readInParts(df)) inParts.incrementAndGet()
          (df, rows)
        }
        val where = randomPredicate(random)
        val truth = sorted(session.sql(s"SELECT * FROM $truthView WHERE $where"))
        val (df, used) = readThroughIndex(s"SELECT * FROM $t WHERE $where")
        if (throughIndex(df)) viaIndex.incrementAndGet()
        val unused = withConf(session)(HBaseSQLConf.GlobalIndexEnabled.key -> "false")(
          sorted(session.sql(s"SELECT * FROM $t WHERE $where"))
        )
        // A third of the clauses also with the index taking at most 3 rows, so that most fall back.
        val few = if (n % 3 != 0) Nil
        else Seq("used for at most 3 rows" -> withConf(session)(HBaseSQLConf.GlobalIndexMaxRows.key -> "3")(
          sorted(session.sql(s"SELECT * FROM $t WHERE $where"))
        ))
        (Seq("used" -> used, "unused" -> unused) ++ few).foreach { case (how, rows) =>
          if (rows != truth) fail(s"$layout: $where with the indexes $how: ${rows.size} rows, Spark ${truth.size}")
        }
        // The columns of one index, which it answers for from its VERIFIED rows, with that and without.
        val columns = indexColumns(random.nextInt(indexColumns.size))
        val projected = sorted(session.sql(s"SELECT $columns FROM $truthView WHERE $where"))
        val (coveringDf, coveringRows) = readThroughIndex(s"SELECT $columns FROM $t WHERE $where")
        if (covering(coveringDf)) covered.incrementAndGet()
        val notCovering = if (n % 3 != 1) Nil
        else Seq("not covering" -> withConf(session)(HBaseSQLConf.GlobalIndexCovering.key -> "false")(
          sorted(session.sql(s"SELECT $columns FROM $t WHERE $where"))
        ))
        (("covering" -> coveringRows) +: notCovering).foreach { case (how, rows) =>
          if (rows != projected) {
            fail(s"$layout: SELECT $columns WHERE $where, $how: ${rows.size} rows, Spark ${projected.size}")
          }
        }
        if (n % 6 == 0) {
          def query(table: String) = s"SELECT age, count(*), min(email) FROM $table WHERE $where GROUP BY age"
          withClue(s"$layout: ${query(t)}: ")(
            sorted(session.sql(query(t))) shouldBe sorted(session.sql(query(truthView)))
          )
        }
        // Aggregates over the columns of one index, grouped and not, on the driver and in a job.
        if (n % 3 == 0) {
          val (first, last) = (columns.split(", ").head, columns.split(", ").last)
          // Grouped ones also with a HAVING, or an ORDER BY of their groups, whose order is compared.
          val (groupBy, ordered) = (n % 2, n / 6 % 3) match {
            case (1, _) => ("", false)
            case (_, 0) => (s" GROUP BY $last", false)
            case (_, 1) => (s" GROUP BY $last HAVING count(*) > 1", false)
            case _ => (s" GROUP BY $last ORDER BY $last DESC NULLS FIRST", true)
          }
          def query(table: String) =
            s"SELECT ${if (groupBy.isEmpty) "" else s"$last, "}count(*), count($last), min($first), max($last) " +
              s"FROM $table WHERE $where$groupBy"
          def rowsOf(df: DataFrame) = if (ordered) df.collect().toSeq.map(_.toString) else sorted(df)
          val truth = rowsOf(session.sql(query(truthView)))
          val onDriver = session.sql(query(t))
          val rows = withParts(rowsOf(onDriver))
          if (aggregatedOnDriver(onDriver)) driverAggregates.incrementAndGet()
          val inAJob =
            withConf(session)(HBaseSQLConf.DriverReadAggregates.key -> "false")(rowsOf(session.sql(query(t))))
          Seq("on the driver" -> rows, "in a job" -> inAJob).foreach { case (how, rows) =>
            if (rows != truth)
              fail(s"$layout: ${query(t)}, $how: ${rows.mkString("; ")}, Spark ${truth.mkString("; ")}")
          }
        }
        // Half the cases also aggregate the rows of a covering read, alternately in the index's region servers and
        // on the driver; the rows changed minutes ago, so with no window for recent writes.
        if (n % 2 == 1) withConf(session)(
          HBaseSQLConf.GlobalIndexRecentWrites.key -> "0",
          HBaseSQLConf.GlobalIndexServerAggregates.key -> (n % 4 == 1).toString
        ) {
          val where = emailPredicate(random)
          def query(table: String, hint: String) =
            s"SELECT $hint age, count(*), count(age), min(id), max(age), sum(id) FROM $table WHERE $where GROUP BY age"
          val truth = sorted(session.sql(query(truthView, "")))
          val df = session.sql(query(t, s"/*+ INDEX($t, by_email) */"))
          val rows = withParts(sorted(df))
          indexAggregates.incrementAndGet()
          if (ScanMetrics.of(df)("indexRowsAggregated") > 0) inIndexServers.incrementAndGet()
          if (rows != truth) fail(s"$layout: ${query(t, "")}: ${rows.mkString("; ")}, Spark ${truth.mkString("; ")}")
        }
      }
      noFailedCases("global indexes", cases, failures)
      info(s"${viaIndex.get} of $cases clauses were planned through an index, ${covered.get} covering")
      withClue("clauses planned through an index: ")(
        viaIndex.get.toDouble should be > floorOf(cases, 0.25, suiteCases)
      )
      withClue("clauses planned through a covering index: ")(
        covered.get.toDouble should be > floorOf(cases, 0.05, suiteCases)
      )
      info(s"${inParts.get} reads through an index cut their ranges into parts")
      withClue("reads through an index cut into parts: ")(
        inParts.get.toDouble should be > floorOf(cases, 0.1, suiteCases)
      )
      info(
        s"${inIndexServers.get} of ${indexAggregates.get} aggregates over by_email were computed in its region servers"
      )
      withClue("aggregates computed in the index's region servers: ")(
        inIndexServers.get.toDouble should be > floorOf(cases, 0.1, suiteCases)
      )
      info(s"${driverAggregates.get} aggregates were computed on the driver")
      withClue("aggregates computed on the driver: ")(
        driverAggregates.get.toDouble should be > floorOf(cases, 0.02, suiteCases)
      )
    }
  }

  /** The scan's step that narrows its rows to the join's values through an index, if any. */
  private def joinedThroughIndex(df: DataFrame): Boolean =
    collect(df.queryExecution.executedPlan) { case s: HBaseTableScan => s.plan.joinKeys.flatMap(_.throughIndex) }
      .flatten.nonEmpty

  private val joinCases = randomCases(inTheSuite = 40)

  describe(s"$joinCases random joins on the leading column of a global index") {
    it("return exactly Spark's rows with the other side's values looked up in the index, and without") {
      val (cells, packed, truthView) = people
      val throughIndex = new AtomicInteger()
      val failures = failedCases(joinCases, seed = 223) { (n, random, session) =>
        val t = if (n % 2 == 0) packed else cells
        // The small side: values of one indexed column, some held by no row, some NULL, some twice.
        val (column, values) = random.nextInt(3) match {
          case 0 => "email" -> Seq.fill(1 + random.nextInt(8))(
              if (random.nextInt(6) == 0) "NULL" else s"'u${random.nextInt(rows / 2)}@x'"
            )
          case 1 => "age" -> Seq.fill(1 + random.nextInt(4))(
              if (random.nextInt(6) == 0) "NULL" else random.nextInt(70).toString
            )
          case _ => "born" -> Seq.fill(1 + random.nextInt(5))(
              if (random.nextInt(6) == 0) "CAST(NULL AS DATE)"
              else s"DATE'${java.time.LocalDate.of(2024, 1, 1).plusDays(random.nextInt(420))}'"
            )
        }
        val small = s"(SELECT * FROM VALUES ${values.map(v => s"($v)").mkString(", ")} AS s(v))"
        val (join, columns) = random.nextInt(3) match {
          case 0 => "JOIN" -> "p.id, p.email, p.age, s.v"
          case 1 => "LEFT SEMI JOIN" -> "p.id, p.tag, p.score"
          case _ => "JOIN" -> "p.id, p.age"
        }
        val where = if (random.nextBoolean()) "" else s" WHERE p.id % ${2 + random.nextInt(5)} = 0"
        def query(table: String) =
          s"SELECT /*+ BROADCAST(s) */ $columns FROM $table p $join $small s ON p.$column = s.v$where"
        val truth = sorted(session.sql(query(truthView)))
        val df = session.sql(query(t))
        val used = sorted(df)
        if (joinedThroughIndex(df)) throughIndex.incrementAndGet()
        val unused = withConf(session)(HBaseSQLConf.GlobalIndexEnabled.key -> "false")(sorted(session.sql(query(t))))
        Seq("looked up in the index" -> used, "without the index" -> unused).foreach { case (how, rows) =>
          if (rows != truth) fail(s"${query(t)}, $how: ${rows.size} rows, Spark ${truth.size}")
        }
      }
      noFailedCases("joins through global indexes", joinCases, failures)
      info(s"${throughIndex.get} of $joinCases joins looked their values up in an index")
      withClue("joins that looked their values up in an index: ")(
        throughIndex.get.toDouble should be > floorOf(joinCases, 0.5, 40)
      )
    }

    it("reads only the rows of the values the other side holds, by Gets, and says so in EXPLAIN") {
      val t = emails("joined", name = "CONCAT('n', id)")
      val query = s"SELECT /*+ BROADCAST(s) */ p.id, p.name FROM $t p JOIN (SELECT * FROM VALUES ('u7@x'), " +
        "('u9@x'), ('none@x'), (NULL) AS s(v)) s ON p.email = s.v"
      val df = sql(query)
      df.collect().map(_.getLong(0)).sorted shouldBe Seq(7L, 9L, 407L, 409L, 807L, 809L)
      df.queryExecution.executedPlan.toString should include(
        s"rows narrowed at run time to values of email from the join's other side (at most 10000), through " +
          s"global index by_email [$t.by_email.idx] (at most 100000 rows)"
      )
      val metrics = ScanMetrics.of(df)
      Seq("rowsRead", "gets", "indexRowsRead").map(metrics) shouldBe Seq(6L, 6L, 6L)
      withClue("NO_INDEX(t) reads the table: ")(
        sql(query.replace("/*+ BROADCAST(s) */", s"/*+ BROADCAST(s), NO_INDEX(p) */")).queryExecution.executedPlan
          .toString should not include "through global index"
      )
    }
  }

  /**
   * Rows 0 to 999 keyed by id in four regions, with email u<id % 400>@x, name given by the SQL
   * expression `name` over id, and a global index by_email.
   */
  private def emails(prefix: String, name: String): String = {
    val t = uniqueName(prefix)
    sql(s"""CREATE TABLE $t (id BIGINT, email STRING, name STRING, PRIMARY KEY (id))
           |MAPPED BY ($t, COLS=[email=f.email, name=f.name]) SPLIT ON ((250), (500), (750))""".stripMargin)
    sql(s"INSERT INTO $t SELECT id, CONCAT('u', id % 400, '@x'), $name FROM range(1000)")
    sql(s"CREATE INDEX by_email ON $t USING global (email)")
    t
  }

  describe("a lookup by an indexed value") {
    it("reads only the matching rows, by Gets, says so in EXPLAIN, and is not used when switched off") {
      val t = emails("lookups", name = "CONCAT('n', id)")
      val df = sql(s"SELECT id, name FROM $t WHERE email = 'u7@x'")
      df.collect().map(_.getLong(0)).sorted shouldBe Seq(7L, 407L, 807L)
      val explained = df.queryExecution.executedPlan.toString
      explained should include regex (
        s"rows narrowed at run time by global index by_email \\[$t.by_email.idx\\], at most [0-9.]+ MB of the index " +
          "against [0-9.]+ MB of the table, 1 key ranges \\(=u7@x\\) \\(at most 100000 rows\\)"
      )
      val metrics = ScanMetrics.of(df)
      Seq("rowsRead", "gets", "indexRowsRead", "untrustedRegions").map(metrics) shouldBe Seq(3L, 3L, 3L, 0L)
      withConf(HBaseSQLConf.GlobalIndexEnabled.key -> "false") {
        val off = sql(s"SELECT id, name FROM $t WHERE email = 'u7@x'")
        off.queryExecution.executedPlan.toString should not include "global index"
        off.collect().map(_.getLong(0)).sorted shouldBe Seq(7L, 407L, 807L)
      }
      withClue("a primary key lookup needs no index: ")(
        sql(s"SELECT * FROM $t WHERE id = 7 AND email = 'u7@x'").queryExecution.executedPlan.toString should
          not include "global index"
      )
      withClue("nor does a time travel read: ")(
        sql(
          s"SELECT * FROM $t TIMESTAMP AS OF timestamp_millis(${System.currentTimeMillis()}) WHERE email = 'u7@x'"
        ).queryExecution.executedPlan
          .toString should not include "global index"
      )
    }

    it("aggregates the rows a covering lookup reads on the driver, in one task when switched off, as Spark does") {
      val t = emails("aggregates", name = "CONCAT('n', id)")
      val grouped =
        s"SELECT email, count(*), min(id), max(id) FROM $t WHERE email IN ('u7@x', 'u8@x', 'no') GROUP BY email"
      val none = s"SELECT count(*), max(id) FROM $t WHERE email = 'no'"
      val expected = Seq(Row("u7@x", 3L, 7L, 807L), Row("u8@x", 3L, 8L, 808L))
      val df = sql(grouped)
      df.queryExecution.executedPlan.toString should include regex
        "DriverAggregate.*\\n.*HashAggregate.*\\n.*in one task"
      jobsRunBy(df.collect().sortBy(_.getString(0)).toSeq shouldBe expected) shouldBe 0
      jobsRunBy(sql(none).collect().toSeq shouldBe Seq(Row(0L, null))) shouldBe 0
      val ordered = s"$grouped HAVING max(id) > 0 ORDER BY count(*) DESC, email DESC"
      jobsRunBy(sql(ordered).collect().toSeq shouldBe expected.reverse) shouldBe 0
      withConf(HBaseSQLConf.DriverReadAggregates.key -> "false") {
        val inAJob = sql(grouped)
        collect(inAJob.queryExecution.executedPlan) { case e: org.apache.spark.sql.execution.exchange.Exchange => e }
          .shouldBe(empty)
        jobsRunBy(inAJob.collect().sortBy(_.getString(0)).toSeq shouldBe expected) shouldBe 1
        sql(none).collect().toSeq shouldBe Seq(Row(0L, null))
      }
      sql(grouped.replace("SELECT", s"SELECT /*+ NO_INDEX($t) */")).collect().sortBy(_.getString(0)).toSeq shouldBe
        expected
    }

    it("reads the index once when it names more rows than a lookup takes, and then aggregates in Spark's job") {
      val t = emails("overflowing", name = "CONCAT('n', id)")
      // HBase's own count of the rows its region servers read from the index table.
      def indexRowsRead(): Long = regionMetrics(s"$t.by_email.idx").map(_.getReadRequestCount).sum
      def readingIndex(body: => Unit): Long = { val before = indexRowsRead(); body; indexRowsRead() - before }
      val where = "email IN ('u7@x', 'u8@x')"
      withConf(HBaseSQLConf.GlobalIndexMaxRows.key -> "2") {
        val aggregate = sql(s"SELECT email, count(*), max(id) FROM $t WHERE $where GROUP BY email")
        aggregate.queryExecution.executedPlan.toString should include("DriverAggregate")
        val byAggregate = readingIndex {
          jobsRunBy(aggregate.collect().sortBy(_.getString(0)).toSeq shouldBe
            Seq(Row("u7@x", 3L, 807L), Row("u8@x", 3L, 808L))) should be >= 1
        }
        val byScan = readingIndex(sql(s"SELECT id FROM $t WHERE $where").collect() should have size 6)
        withClue("index rows read by the aggregate and by a scan of the same rows: ")(byAggregate shouldBe byScan)
        byScan should be > 0L
      }
    }

    it("follows the hints INDEX(t, i) and NO_INDEX(t), in Spark's and Phoenix's spelling, with the same rows") {
      val t = emails("hinted", name = "CONCAT('n', id % 100)")
      sql(s"CREATE INDEX by_name ON $t USING global (name)")
      def plan(
          hint: String,
          where: String = "email = 'u7@x' AND name = 'n7'",
          from: String = t
      ): (String, Seq[Long]) = {
        val df = sql(s"SELECT $hint id FROM $from WHERE $where")
        val explained = df.queryExecution.executedPlan.toString
        val index = Seq("by_email", "by_name").find(i => explained.contains(s"global index $i ["))
        (
          index.fold("none")(i => if (explained.contains(s"$i [$t.$i.idx], as hinted")) s"$i, hinted" else i),
          df.collect().map(_.getLong(0)).sorted.toSeq
        )
      }
      val rows = Seq(7L, 407L, 807L)
      plan("") shouldBe (("by_email", rows)) // a lookup of either: the first one defined
      plan(s"/*+ INDEX($t, by_name) */") shouldBe (("by_name, hinted", rows))
      plan(s"/*+ INDEX($t by_name) */") shouldBe (("by_name, hinted", rows))
      plan("/*+ INDEX(u, by_name, by_email) */", from = s"$t u") shouldBe (("by_email, hinted", rows))
      plan(s"/*+ NO_INDEX($t) */") shouldBe (("none", rows))
      plan("/*+ NO_INDEX(u) */", from = s"$t u") shouldBe (("none", rows))
      withClue("an index the clause cannot use is no use: ")(
        plan(s"/*+ INDEX($t, by_name) */", where = "email = 'u7@x'") shouldBe (("by_email", rows))
      )
      withClue("a hint asks for the index even beside a primary key lookup: ")(
        plan(s"/*+ INDEX($t, by_email) */", where = "id = 407 AND email = 'u7@x'") shouldBe
          (("by_email, hinted", Seq(407L)))
      )
      intercept[HBaseSQLException](sql(s"SELECT /*+ INDEX($t, nope) */ id FROM $t")).getMessage shouldBe
        s"hint INDEX($t, nope): table '$t' has no global index 'nope'"
      intercept[HBaseSQLException](sql(s"SELECT /*+ NO_INDEX(other) */ id FROM $t")).getMessage shouldBe
        "hint NO_INDEX(other): the query reads no HBase table named 'other'"
      intercept[HBaseSQLException](sql(s"SELECT /*+ INDEX($t) */ id FROM $t")).getMessage shouldBe
        s"hint INDEX($t): give INDEX(table, index [, index ...]) or NO_INDEX(table)"
    }

    it(
      "is not used where HBase's sizes show the data regions read to hold fewer bytes than the index regions, and EXPLAIN says so"
    ) {
      val t = emails("weighed", name = "CONCAT('n', id)")
      def explained(where: String): String = {
        val df = sql(s"SELECT id FROM $t WHERE $where")
        df.collect().map(_.getLong(0)).sorted.toSeq shouldBe
          sql(s"SELECT /*+ NO_INDEX($t) */ id FROM $t WHERE $where").collect().map(_.getLong(0)).sorted.toSeq
        df.queryExecution.executedPlan.toString
      }
      // Every region holds at least the same rounding in HBase's sizes: a region of each is a tie, which the index wins.
      explained("email = 'u7@x'") should include regex
        "global index by_email \\[[^]]+\\], at most [0-9.]+ MB of the index against [0-9.]+ MB of the table"
      val ranged = explained("id BETWEEN 10 AND 20 AND email >= 'u'")
      ranged should include regex
        "global index by_email not used: at most [0-9.]+ MB of the index against [0-9.]+ MB of the table"
      ranged should not include "rows narrowed"
      withClue("a hint still reads through it: ")(
        sql(s"SELECT /*+ INDEX($t, by_email) */ id FROM $t WHERE id BETWEEN 10 AND 20 AND email >= 'u'")
          .queryExecution.executedPlan.toString should include("global index by_email [")
      )
    }
  }

  /** Whether a collect of `df` reads its ORDER BY ... LIMIT in a global index's order. */
  private def inIndexOrder(df: DataFrame): Boolean =
    df.queryExecution.executedPlan.collectFirst { case _: IndexOrderLimit => true }.getOrElse(false)

  private val orderCases = randomCases(inTheSuite = 30)

  describe(s"$orderCases random ORDER BY ... LIMIT queries led by an indexed column") {
    it("return exactly Spark's rows, in order, read in the index's order and without it") {
      val (cells, packed, truthView) = people
      val (planned, answered) = (new AtomicInteger(), new AtomicInteger())
      val failures = failedCases(orderCases, seed = 227) { (n, random, session) =>
        def pick[T](options: T*): T = options(random.nextInt(options.size))
        val t = if (n % 2 == 0) packed else cells
        // The leading columns of by_email, by_age_tag and by_born; id makes the order total.
        val column = pick("email", "age", "born")
        val order = s"$column${pick("", " ASC", " DESC")}${pick("", " NULLS FIRST", " NULLS LAST", " NULLS LAST")}, id"
        val where = pick("", s" WHERE ${randomPredicate(random)}", s" WHERE $column IS NOT NULL", " WHERE id % 3 = 0")
        val columns = pick("*", "id, email, age", s"id, $column")
        def query(table: String) = s"SELECT $columns FROM $table$where ORDER BY $order LIMIT ${1 + random.nextInt(20)}"
        val text = query(t)
        val truth = session.sql(text.replace(t, truthView)).collect().toSeq.map(_.toString)
        val df = session.sql(text)
        val used = df.collect().toSeq.map(_.toString)
        if (inIndexOrder(df)) {
          planned.incrementAndGet()
          if (ScanMetrics.of(df).get("rowsInIndexOrder").exists(_ > 0)) answered.incrementAndGet()
        }
        val unused = withConf(session)(HBaseSQLConf.GlobalIndexEnabled.key -> "false")(
          session.sql(text).collect().toSeq.map(_.toString)
        )
        // A third also with the index taking at most 5 rows, so that most fall back to the scan.
        val few = if (n % 3 != 0) Nil
        else Seq("used for at most 5 rows" -> withConf(session)(HBaseSQLConf.GlobalIndexMaxRows.key -> "5")(
          session.sql(text).collect().toSeq.map(_.toString)
        ))
        (Seq("in the index's order" -> used, "without the index" -> unused) ++ few).foreach { case (how, rows) =>
          if (rows != truth) fail(s"$text, $how: ${rows.mkString("; ")}, Spark ${truth.mkString("; ")}")
        }
      }
      noFailedCases("ORDER BY ... LIMIT through global indexes", orderCases, failures)
      info(s"${planned.get} of $orderCases were planned in an index's order, ${answered.get} answered by it")
      withClue("queries answered in an index's order: ")(
        answered.get.toDouble should be > floorOf(orderCases, 0.25, 30)
      )
    }

    it("reads only as far into the index as the limit needs, says so in EXPLAIN, and keeps NULLs where they go") {
      val t = emails("ordered", name = "CONCAT('n', id)")
      sql(s"INSERT INTO $t VALUES (1000, NULL, 'nobody')")
      // In descending order: u9@x (9, 409, 809), u99@x (99, 499, 899), u98@x ... as index rows go.
      val query = s"SELECT id, email, name FROM $t ORDER BY email DESC, id LIMIT 4"
      val df = sql(query)
      df.collect().toSeq shouldBe Seq(
        Row(9L, "u9@x", "n9"),
        Row(409L, "u9@x", "n409"),
        Row(809L, "u9@x", "n809"),
        Row(99L, "u99@x", "n99")
      )
      df.queryExecution.executedPlan.toString should include(
        s"a collect reads the first 4 rows by email DESC in the order of global index by_email [$t.by_email.idx], " +
          "every non-NULL value (at most 100000 rows)"
      )
      // One batch of 16 index rows, whose data rows are read by Gets: 15 of them come before the 16th's value.
      val metrics = ScanMetrics.of(df)
      Seq("indexRowsRead", "gets", "rowsRead", "rowsInIndexOrder").map(metrics) shouldBe Seq(16L, 16L, 16L, 16L)
      withClue("a covering read reads no data row: ") {
        val covered = sql(s"SELECT id, email FROM $t ORDER BY email DESC, id LIMIT 4")
        covered.collect().map(_.getLong(0)).toSeq shouldBe Seq(9L, 409L, 809L, 99L)
        Seq("indexRowsRead", "gets").map(ScanMetrics.of(covered)) shouldBe Seq(16L, 0L)
      }
      withClue("NULLs first, where the index has no row for them, need the table: ") {
        val nullsFirst = sql(s"SELECT id FROM $t ORDER BY email NULLS FIRST, id LIMIT 2")
        nullsFirst.collect().map(_.getLong(0)).toSeq shouldBe Seq(1000L, 0L)
        inIndexOrder(nullsFirst) shouldBe false
      }
      withClue("unless the WHERE clause rules them out: ") {
        val notNull = sql(s"SELECT id FROM $t WHERE email >= 'u3' ORDER BY email, id LIMIT 2")
        // 'u300@x' (300, 700) is the first text from 'u3' on: '0' sorts before '@'.
        notNull.collect().map(_.getLong(0)).toSeq shouldBe Seq(300L, 700L)
        inIndexOrder(notNull) shouldBe true
        ScanMetrics.of(notNull)("indexRowsRead") shouldBe 16L
      }
      withClue("a WHERE clause the index rows cannot check reads batches until enough rows pass it: ") {
        val filtered = sql(s"SELECT id FROM $t WHERE name = 'n4' OR name = 'n404' ORDER BY email NULLS LAST LIMIT 1")
        filtered.collect().map(_.getLong(0)).toSeq should (equal(Seq(4L)) or equal(Seq(404L)))
        inIndexOrder(filtered) shouldBe true
      }
      withClue("nor do NULLs first in a descending order: ") {
        sql(s"SELECT email FROM $t ORDER BY email DESC NULLS FIRST LIMIT 1").collect().toSeq shouldBe Seq(Row(null))
      }
      for (
        (how, hinted) <- Seq(
          "NO_INDEX(t)" -> query.replace("SELECT", s"SELECT /*+ NO_INDEX($t) */"),
          "switched off" -> query
        )
      ) withConf(HBaseSQLConf.GlobalIndexEnabled.key -> (how != "switched off").toString) {
        val without = sql(hinted)
        withClue(s"$how: ")(inIndexOrder(without) shouldBe false)
        without.collect().map(_.getLong(0)).toSeq shouldBe Seq(9L, 409L, 809L, 99L)
      }
    }
  }
}
