// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import java.util.concurrent.atomic.AtomicInteger

import scala.util.Random

import org.apache.spark.sql.hbase.{DifferentialCases, HBaseSuite, RandomClauses}
import org.apache.spark.sql.Row
import org.apache.spark.sql.hbase.execution.ScanMetrics
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * The range index against the truth: random WHERE clauses over indexed and unindexed columns
 * must return exactly what Spark returns over the same rows held in memory, with the index used
 * and with it unused, on a table whose indexed columns follow the key and on one where they do not,
 * each in both layouts (one cell per column, and LAYOUT PACKED); so must aggregates over them,
 * computed in the region servers.
 */
class RangeIndexDifferentialSpec extends HBaseSuite with DifferentialCases {
  private val rowsPerTable = 6000
  // The spec's cases, half on each of its two tables; of those, half on each layout.
  private val suitePredicatesPerTable = 160
  private val predicatesPerTable = randomCases(inTheSuite = 2 * suitePredicatesPerTable) / 2

  private val strings = Seq("", "a", "ab", "abc", "b", "ba", "é", "zz", "x" * 70 + "a", "x" * 70 + "b", "x" * 80)

  /**
   * A table of (sensor, seq) readings, its LAYOUT PACKED twin holding the same rows, both with the
   * same range index, and their truth: a view of the same rows in Spark's memory.
   * `clustered`: ts, d, dec and dt grow with seq, as appended time series do.
   */
  private def tables(clustered: Boolean): (String, String, String) = {
    val t = uniqueName(if (clustered) "clustered" else "scattered")
    val packed = s"${t}_packed"
    for ((name, layout) <- Seq(t -> "CELLS", packed -> "PACKED"))
      sql(s"""CREATE TABLE $name (sensor INT, seq INT, ts BIGINT, d DOUBLE, s STRING, dec DECIMAL(10, 2), dt DATE,
             |r INT, u INT, PRIMARY KEY (sensor, seq))
             |MAPPED BY ($name, COLS=[ts=f.ts, d=f.d, s=f.s, dec=f.dec, dt=g.dt, r=f.r, u=g.u]) LAYOUT $layout
             |SPLIT ON ((1), (2), (3))""".stripMargin)
    val random = new Random(if (clustered) 11 else 13)
    def maybeNull[T](value: => T): T = if (random.nextInt(8) == 0) null.asInstanceOf[T] else value
    val rows = (0 until rowsPerTable).map { i =>
      val (sensor, seq) = (i % 4, i / 4)
      val order = if (clustered) seq else random.nextInt(rowsPerTable / 4)
      Row(
        sensor,
        seq,
        maybeNull(java.lang.Long.valueOf(order * 10L + random.nextInt(10))),
        maybeNull(java.lang.Double.valueOf(order / 3.0 - 100)),
        maybeNull(if (clustered) strings(order * strings.size / (rowsPerTable / 4))
        else strings(random.nextInt(strings.size))),
        maybeNull(new java.math.BigDecimal(order).movePointLeft(1)),
        maybeNull(java.sql.Date.valueOf(java.time.LocalDate.of(2020, 1, 1).plusDays(order / 5))),
        maybeNull(Integer.valueOf(random.nextInt(1000))),
        maybeNull(Integer.valueOf(random.nextInt(50)))
      )
    }
    val schema = spark.table(t).schema
    for (name <- Seq(t, packed)) {
      spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), schema).write.insertInto(name)
      sql(s"CREATE INDEX ${name}_idx ON $name (ts, d, s, dec, dt, r) OPTIONS (chunkRows = 64)")
      flushed(name)
    }
    (t, packed, sharedView(s"${t}_truth", spark.table(t).collect().toSeq, schema))
  }

  private def randomPredicate(random: Random, depth: Int): String = {
    def pick[T](options: T*): T = options(random.nextInt(options.size))
    def op = pick("=", "<", "<=", ">", ">=", "<>", "<=>")
    def str = s"'${strings(random.nextInt(strings.size)).take(pick(1, 3, 75))}'"
    def ts = random.nextInt(16000) - 500
    def date = s"DATE '${java.time.LocalDate.of(2020, 1, 1).plusDays(random.nextInt(320) - 10)}'"
    def atom: String = random.nextInt(13) match {
      case 0 => s"ts $op $ts"
      case 1 => s"ts BETWEEN $ts AND ${ts + pick(5, 50, 500)}"
      case 2 => s"d $op ${random.nextInt(600) - 110}.5"
      case 3 => s"s $op $str"
      case 4 => pick("s LIKE 'x%'", "s LIKE 'ab%'", "s LIKE 'é%'", s"s IN ($str, $str)", "s IS NULL")
      case 5 => s"dec $op ${random.nextInt(170) - 10}.${random.nextInt(10)}"
      case 6 => s"dt $op $date"
      case 7 => s"r $op ${random.nextInt(1000)}"
      case 8 => s"ts IN (${Seq.fill(1 + random.nextInt(4))(ts).mkString(", ")})"
      case 9 => pick("ts IS NULL", "d IS NOT NULL", "dt IS NULL", "r IS NOT NULL", s"r IN (1, 2, NULL)")
      case 10 => s"u $op ${random.nextInt(50)}"
      case 11 => pick(
          s"sensor = ${random.nextInt(4)}",
          s"seq < ${random.nextInt(1500)}",
          s"CAST(ts AS DOUBLE) > $ts.5",
          "d > ts",
          s"ts + 1 = $ts"
        )
      case _ => s"ts >= $ts AND ts < ${ts + pick(20, 200)}"
    }
    RandomClauses.nested(random, depth)(atom)
  }

  private def sorted(rows: Seq[Row]): Seq[String] = rows.map(_.toString).sorted

  Seq(true, false).foreach { clustered =>
    describe(s"$predicatesPerTable random WHERE clauses on a table whose indexed columns ${if (clustered) "follow"
      else "ignore"} the key") {
      it("return exactly Spark's rows with the index used and unused, half of them over its LAYOUT PACKED twin") {
        val (cells, packed, truthView) = tables(clustered)
        // Odd cases read the table of one cell per column, even ones its packed twin.
        def tableOf(n: Int): (String, String) = if (n % 2 == 0) ("LAYOUT PACKED", packed) else ("LAYOUT CELLS", cells)
        val casesOf = (1 to predicatesPerTable).groupBy(tableOf(_)._1).map { case (layout, ns) => layout -> ns.size }
        val skipping = casesOf.map { case (layout, _) => layout -> new AtomicInteger() }
        val mismatches = failedCases(predicatesPerTable, seed = if (clustered) 101 else 103) { (n, random, session) =>
          val (layout, t) = tableOf(n)
          val where = randomPredicate(random, 2)
          // A quarter of the clauses, in each layout, also as an aggregate, which the region servers
          // compute over the same chunks.
          if (n % 8 < 2) {
            def query(table: String) =
              s"SELECT sensor, count(*), sum(r), min(ts) FROM $table WHERE $where GROUP BY sensor"
            val expected = sorted(session.sql(query(truthView)).collect().toSeq)
            withClue(
              s"$layout: ${query(t)} with the index used: "
            )(sorted(session.sql(query(t)).collect().toSeq) shouldBe
              expected)
          }
          val truth = sorted(session.sql(s"SELECT * FROM $truthView WHERE $where").collect().toSeq)
          val df = session.sql(s"SELECT * FROM $t WHERE $where")
          val used = sorted(df.collect().toSeq)
          if (ScanMetrics.of(df)("chunksSkipped") > 0) skipping(layout).incrementAndGet()
          val unused = withConf(session)(
            HBaseSQLConf.IndexEnabled.key -> "false"
          )(sorted(session.sql(s"SELECT * FROM $t WHERE $where").collect().toSeq))
          Seq("used" -> used, "unused" -> unused).foreach { case (how, rows) =>
            if (rows != truth) fail(s"$layout: $where with the index $how: ${rows.size} rows, Spark ${truth.size}")
          }
        }
        noFailedCases(s"range index, ${if (clustered) "clustered" else "scattered"}", predicatesPerTable, mismatches)
        val share = (if (clustered) 40.0 else 10.0) / 160
        withClue("clauses for which the index skipped chunks: ")(
          skipping.values.map(_.get).sum.toDouble should
            be > floorOf(predicatesPerTable, share, suitePredicatesPerTable)
        )
        // Each layout's clauses are a smaller sample than the suite's, with a floor lowered to match.
        for ((layout, cases) <- casesOf.toSeq.sorted) {
          info(s"$layout: the index skipped chunks for ${skipping(layout).get} of $cases clauses")
          withClue(s"$layout: clauses for which the index skipped chunks: ")(
            skipping(layout).get.toDouble should be > floorOf(cases, share, suitePredicatesPerTable)
          )
        }
      }
    }
  }
}
