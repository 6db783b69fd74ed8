// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import java.util.SplittableRandom
import java.util.concurrent.{Callable, ExecutionException, Executors}

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.{Row, SparkSession}

/**
 * How the differential specs run their random cases: how many, on sessions side by side, and
 * what they report.
 *
 * Each case draws from a random generator of its own, seeded by the spec's seed and the case's
 * number, so a case asks the same question whichever session runs it and in whatever order.
 */
trait DifferentialCases { self: HBaseSuite =>

  /**
   * How many random cases a differential spec checks: `inTheSuite` in the test suite, or
   * SPARK_HBASE_DIFFERENTIAL_CASES for the long run (`./benchmarks/run differential --cases N`).
   */
  protected def randomCases(inTheSuite: Int): Int =
    sys.env.get("SPARK_HBASE_DIFFERENTIAL_CASES").map(_.toInt).getOrElse(inTheSuite)

  /**
   * How many of `cases` must show something the random cases should often show: more than
   * `share` of them, as in the suite's own run of `inTheSuite` cases and in longer runs. A shorter
   * run (`./benchmarks/run differential --cases 300`) is a smaller sample: its floor is lowered by
   * three standard deviations of a binomial count, so that chance alone does not fail it. In a
   * sample too small to demand anything that floor is below zero, so it holds at every case count
   * (the answers of every case are still compared with Spark's); clamping it at zero would demand
   * one case where chance may give none.
   */
  protected def floorOf(cases: Int, share: Double, inTheSuite: Int): Double =
    DifferentialCases.floorOf(cases, share, inTheSuite)

  /**
   * How many sessions run cases at once (SPARK_HBASE_DIFFERENTIAL_SESSIONS, 2 by default). Most of
   * a case's time is Spark's fixed cost per query and HBase round trips, which overlap well.
   */
  protected val caseSessions: Int = sys.env.get("SPARK_HBASE_DIFFERENTIAL_SESSIONS").map(_.toInt).getOrElse(2)

  /**
   * Runs `check` for cases 1..n, each with its own random generator and on one of
   * [[caseSessions]] new sessions of the shared SparkContext (their own settings, so that
   * `withConf(session)` in one case does not reach another), and returns the failures in case order:
   * a differential spec reports every case that differs rather than the first.
   */
  protected def failedCases(n: Int, seed: Long)(check: (Int, Random, SparkSession) => Unit): Seq[String] =
    failedCasesOf(caseRandoms(n, seed))(check)

  /**
   * Runs `check` for each of `questions` as [[failedCases]] does, case i asking `questions(i - 1)`:
   * for a spec that draws every case's question first, to ask Spark the truth of many in one query.
   */
  protected def failedCasesOf[Q](questions: IndexedSeq[Q])(check: (Int, Q, SparkSession) => Unit): Seq[String] = {
    val workers = Executors.newFixedThreadPool(caseSessions)
    try {
      val runs = (0 until caseSessions).map { w =>
        workers.submit(new Callable[Seq[(Int, String)]] {
          override def call(): Seq[(Int, String)] = {
            val session = spark.newSession()
            SparkSession.setActiveSession(session)
            questions.indices.map(_ + 1).filter(_ % caseSessions == w).flatMap { i =>
              try { check(i, questions(i - 1), session); None }
              catch { case failed: org.scalatest.exceptions.TestFailedException => Some(i -> failed.getMessage) }
            }
          }
        })
      }
      // A case that throws rather than fails ends the spec, with its own error rather than the pool's.
      try runs.flatMap(_.get()).sortBy(_._1).map(_._2)
      catch { case e: ExecutionException => throw e.getCause }
    } finally workers.shutdownNow()
  }

  /**
   * The generators of cases 1..n. Each seed is mixed first: java.util.Random's first draws from
   * consecutive seeds step in lockstep, so small choices such as `nextInt(12) == 0` would repeat
   * in patterns over the cases.
   */
  protected def caseRandoms(n: Int, seed: Long): IndexedSeq[Random] = (1 to n).map(i =>
    new Random(new SplittableRandom(seed * 1000003L + i).nextLong())
  )

  /**
   * The rows of `view` where each of `predicates` holds, as `SELECT * FROM view WHERE p` returns
   * them, in `order`, from a few queries rather than one per predicate, which took three times as long:
   * each query projects a chunk of the predicates as columns, and a row answers a predicate where
   * its column is TRUE (not NULL), which is what WHERE keeps.
   */
  protected def rowsWhere(view: String, predicates: Seq[String], order: Ordering[Row]): IndexedSeq[Seq[Row]] = {
    val session = spark.newSession()
    // Spark's generated code evaluates the projection in tasks. Folded into a local relation, it
    // would be interpreted on the driver, in time growing with the square of its width.
    session.conf.set(
      "spark.sql.optimizer.excludedRules",
      "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation"
    )
    val width = session.table(view).schema.size
    predicates.grouped(50).flatMap { chunk =>
      val tested = chunk.zipWithIndex.map { case (p, k) => s"($p) AS holds_$k" }.mkString(", ")
      // Sorted once, rather than each predicate's rows.
      val answers = session.sql(s"SELECT *, $tested FROM $view").collect().toIndexedSeq.sorted(order)
      val rows = answers.map(r => Row.fromSeq(r.toSeq.take(width)))
      chunk.indices.map { k =>
        answers.indices.collect {
          case j if !answers(j).isNullAt(width + k) && answers(j).getBoolean(width + k) => rows(j)
        }
      }
    }.toIndexedSeq
  }

  /** A clue written only if it is shown: the plans' text, written for every case, took a twentieth of a spec's time. */
  protected def clue(text: => String): AnyRef = new AnyRef {
    private lazy val written = text
    override def toString: String = written
  }

  /** Passes if no case failed; else names how many did, and shows the first few. */
  protected def noFailedCases(what: String, cases: Int, failures: Seq[String]): Unit = {
    info(s"$what: $cases cases, ${failures.size} answers differ from Spark's")
    withClue(s"${failures.size} answers of $cases cases differ; the first:\n${failures.take(3).mkString("\n\n")}\n")(
      failures shouldBe empty
    )
  }

  /** Makes a view of `rows` that every session sees, as `global_temp.<name>`. */
  protected def sharedView(
      name: String,
      rows: Seq[Row],
      schema: org.apache.spark.sql.types.StructType
  )
      : String = {
    // A local relation: Spark's optimizer filters it on the driver, without a job.
    spark.createDataFrame(rows.asJava, schema).createOrReplaceGlobalTempView(name)
    s"global_temp.$name"
  }
}

object DifferentialCases {

  /** See the trait's `floorOf`. */
  def floorOf(cases: Int, share: Double, inTheSuite: Int): Double = {
    val expected = cases * share
    if (cases >= inTheSuite) expected else expected - 3 * math.sqrt(expected * (1 - share))
  }
}
