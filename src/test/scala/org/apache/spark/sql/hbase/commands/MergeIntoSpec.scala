// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.Row
import org.apache.spark.sql.hbase.HBaseSuite
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}

class MergeIntoSpec extends HBaseSuite {

  /** Accounts 1..6, balance 10 * id, in two regions. */
  private def accounts(layout: String = "CELLS"): String = {
    val t = uniqueName("accounts")
    sql(s"""CREATE TABLE $t (id INT, owner STRING, balance BIGINT, PRIMARY KEY (id))
           |MAPPED BY ($t, COLS=[owner=f.o, balance=f.b]) LAYOUT $layout SPLIT ON ((4))""".stripMargin)
    sql(s"INSERT INTO $t SELECT CAST(id AS INT), CONCAT('o', id), id * 10 FROM range(1, 7)")
    t
  }

  private def changes(name: String, rows: String): String = {
    sql(s"CREATE OR REPLACE TEMPORARY VIEW $name (id, owner, amount) AS VALUES $rows")
    name
  }

  private def rows(query: String): Seq[Row] = sql(query).collect().toSeq

  describe("MERGE INTO an HBase table") {
    it("updates the rows the source matches and inserts the others, and says how many of each") {
      val t = accounts()
      val s = changes("merge_upsert", "(2, 'new2', 5L), (4, 'new4', 7L), (9, 'new9', 90L)")
      rows(
        s"""MERGE INTO $t USING $s ON $t.id = $s.id
              |WHEN MATCHED THEN UPDATE SET balance = balance + $s.amount
              |WHEN NOT MATCHED THEN INSERT (id, owner, balance) VALUES ($s.id, $s.owner, $s.amount)""".stripMargin
      ) shouldBe
        Seq(Row(3L, 2L, 0L, 1L))
      rows(s"SELECT * FROM $t ORDER BY id") shouldBe Seq(
        Row(1, "o1", 10L),
        Row(2, "o2", 25L),
        Row(3, "o3", 30L),
        Row(4, "o4", 47L),
        Row(5, "o5", 50L),
        Row(6, "o6", 60L),
        Row(9, "new9", 90L)
      )
    }

    it("applies the first clause of its kind whose condition holds, in the statement's order") {
      val t = accounts()
      val s = changes("merge_clauses", "(1, 'x', 0L), (2, 'x', 5L), (3, 'x', -5L), (8, 'x', 1L), (9, 'x', -1L)")
      val counts = rows(s"""MERGE INTO $t AS a USING $s AS c ON a.id = c.id
              |WHEN MATCHED AND c.amount = 0 THEN DELETE
              |WHEN MATCHED AND c.amount > 0 THEN UPDATE SET balance = a.balance + c.amount, owner = 'credited'
              |WHEN MATCHED THEN UPDATE SET balance = a.balance + c.amount
              |WHEN NOT MATCHED AND c.amount > 0 THEN INSERT (id, balance) VALUES (c.id, c.amount)
              |WHEN NOT MATCHED BY SOURCE AND a.id > 5 THEN DELETE
              |WHEN NOT MATCHED BY SOURCE THEN UPDATE SET owner = CONCAT(a.owner, '!')""".stripMargin)
      // Updated 2, 3, 4, 5; deleted 1 and 6; inserted 8; 9's amount is not positive.
      counts shouldBe Seq(Row(7L, 4L, 2L, 1L))
      rows(s"SELECT * FROM $t ORDER BY id") shouldBe Seq(
        Row(2, "credited", 25L),
        Row(3, "o3", 25L),
        Row(4, "o4!", 40L),
        Row(5, "o5!", 50L),
        Row(8, null, 1L)
      )
    }

    it("sets and inserts every column by name with UPDATE SET * and INSERT *, the key kept by the condition") {
      val t = accounts("PACKED")
      sql(
        "CREATE OR REPLACE TEMPORARY VIEW merge_star (id, owner, balance) AS VALUES (3, 'three', 3L), (7, 'seven', 7L)"
      )
      rows(s"""MERGE INTO $t USING merge_star ON $t.id = merge_star.id
              |WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *""".stripMargin) shouldBe
        Seq(Row(2L, 1L, 0L, 1L))
      rows(s"SELECT * FROM $t WHERE id IN (2, 3, 7) ORDER BY id") shouldBe
        Seq(Row(2, "o2", 20L), Row(3, "three", 3L), Row(7, "seven", 7L))
    }

    it("updates only the SET columns of a packed table's rows, keeping the others") {
      val t = accounts("PACKED")
      val s = changes("merge_packed", "(5, 'ignored', 1L)")
      rows(s"MERGE INTO $t USING $s ON $t.id = $s.id WHEN MATCHED THEN UPDATE SET balance = 0") shouldBe
        Seq(Row(1L, 1L, 0L, 0L))
      rows(s"SELECT * FROM $t WHERE id = 5") shouldBe Seq(Row(5, "o5", 0L))
    }

    it("refuses a target row that two source rows would change, and writes nothing") {
      val t = accounts()
      val s = changes("merge_twice", "(2, 'a', 1L), (2, 'b', 2L), (9, 'c', 3L)")
      val error = intercept[HBaseSQLException](sql(s"""MERGE INTO $t USING $s ON $t.id = $s.id
              |WHEN MATCHED THEN UPDATE SET balance = $s.amount
              |WHEN NOT MATCHED THEN INSERT (id, balance) VALUES ($s.id, $s.amount)""".stripMargin))
      error.getMessage shouldBe
        s"MERGE INTO $t: 2 source rows match the target row (id = 2), and a WHEN MATCHED " +
        "clause would change it for each; the ON condition must match each target row with at most one source " +
        "row. Nothing was written"
      rows(s"SELECT count(*), sum(balance) FROM $t") shouldBe Seq(Row(6L, 210L))
    }

    it("refuses to insert a row without a key, naming the key column, and writes nothing") {
      val t = accounts()
      val s = changes("merge_no_key", "(2, 'a', 1L), (CAST(NULL AS INT), 'b', 2L)")
      val error = intercept[HBaseSQLException](sql(s"""MERGE INTO $t USING $s ON $t.id = $s.id
              |WHEN MATCHED THEN DELETE
              |WHEN NOT MATCHED THEN INSERT (id, balance) VALUES ($s.id, $s.amount)""".stripMargin))
      error.getMessage shouldBe
        s"MERGE INTO $t: a row its WHEN NOT MATCHED clause would insert has NULL in key " +
        "column 'id', which a row key cannot hold. Nothing was written"
      rows(s"SELECT count(*), sum(balance) FROM $t") shouldBe Seq(Row(6L, 210L))
    }

    it("refuses to change a key column, naming the clause, and writes nothing") {
      val t = accounts()
      val s = changes("merge_key", "(2, 'a', 1L)")
      val error = intercept[HBaseSQLException](
        sql(s"MERGE INTO $t USING $s ON $t.id = $s.id WHEN MATCHED THEN UPDATE SET id = $s.id + 100")
      )
      error.getMessage shouldBe
        s"MERGE INTO $t WHEN MATCHED THEN UPDATE SET id: 'id' is a key column, and a " +
        "row's key is its identity in HBase; DELETE the row and INSERT it with the new key instead"
      rows(s"SELECT count(*), sum(balance) FROM $t") shouldBe Seq(Row(6L, 210L))
    }

    it("reads only the target rows of a small source's keys when every clause is WHEN MATCHED") {
      val t = accounts()
      val s = changes("merge_small", "(2, 'x', 1L), (5, 'x', 1L)")
      val merged = sql(s"MERGE INTO $t USING $s ON $t.id = $s.id WHEN MATCHED THEN UPDATE SET balance = 0")
      merged.collect().toSeq shouldBe Seq(Row(2L, 2L, 0L, 0L))
      org.apache.spark.sql.hbase.execution.ScanMetrics.of(merged)("rowsRead") shouldBe 2L
      rows(s"SELECT id FROM $t WHERE balance = 0 ORDER BY id") shouldBe Seq(Row(2), Row(5))
    }

    it("inserts by key: a row whose key exists, unmatched by the condition, is replaced") {
      val t = accounts()
      val s = changes("merge_by_owner", "(2, 'someone else', 1L)")
      rows(
        s"""MERGE INTO $t USING $s ON $t.owner = $s.owner
              |WHEN NOT MATCHED THEN INSERT (id, owner, balance) VALUES ($s.id, $s.owner, $s.amount)""".stripMargin
      ) shouldBe
        Seq(Row(1L, 0L, 0L, 1L))
      rows(s"SELECT * FROM $t WHERE id = 2") shouldBe Seq(Row(2, "someone else", 1L))
    }
  }

  describe("MERGE INTO against a model of its clauses over the same rows") {
    // Each condition and value twice: as SQL, and as what it gives for a target row (a, v, w) and a
    // source row (a, v, w), either absent; NULL (None) where SQL gives NULL.
    type R = (Int, Option[Int], Option[String])
    final case class Cond(sql: String, holds: (Option[R], Option[R]) => Boolean)
    final case class SetV(sql: String, value: (Option[R], Option[R]) => Option[Int])
    final case class SetW(sql: String, value: (Option[R], Option[R]) => Option[String])

    def both(f: (R, R) => Boolean): (Option[R], Option[R]) => Boolean = (t, s) => t.zip(s).exists(f.tupled)
    val matchedConditions = Seq(
      Cond("t.v > s.v", both((t, s) => t._2.zip(s._2).exists { case (x, y) => x > y })),
      Cond("s.w IS NULL", both((_, s) => s._3.isEmpty)),
      Cond("t.v < 5", both((t, _) => t._2.exists(_ < 5))),
      Cond("s.v % 2 = 0", both((_, s) => s._2.exists(_ % 2 == 0)))
    )
    val sourceConditions = Seq(
      Cond("s.v > 3", (_, s) => s.exists(_._2.exists(_ > 3))),
      Cond("s.w IS NOT NULL", (_, s) => s.exists(_._3.isDefined))
    )
    val targetConditions = Seq(
      Cond("t.v < 4", (t, _) => t.exists(_._2.exists(_ < 4))),
      Cond("t.w = 'b'", (t, _) => t.exists(_._3.contains("b")))
    )
    val matchedV = Seq(
      SetV("v = s.v", (_, s) => s.flatMap(_._2)),
      SetV("v = t.v + s.v", (t, s) => for (x <- t.flatMap(_._2); y <- s.flatMap(_._2)) yield x + y)
    )
    val matchedW = Seq(
      SetW("w = s.w", (_, s) => s.flatMap(_._3)),
      SetW("w = concat(t.w, s.w)", (t, s) => for (x <- t.flatMap(_._3); y <- s.flatMap(_._3)) yield x + y)
    )
    val bySourceV = SetV("v = t.v + 1", (t, _) => t.flatMap(_._2).map(_ + 1))
    val bySourceW = SetW("w = 'gone'", (_, _) => Some("gone"))

    sealed trait Action
    final case class Del(when: Option[Cond]) extends Action
    final case class Upd(when: Option[Cond], v: Option[SetV], w: Option[SetW]) extends Action
    final case class Ins(when: Option[Cond], withW: Boolean) extends Action

    def sqlOf(kind: String, a: Action): String = {
      def cond(c: Option[Cond]) = c.fold("")(c => s" AND ${c.sql}")
      a match {
        case Del(c) => s"WHEN $kind${cond(c)} THEN DELETE"
        case Upd(c, v, w) => s"WHEN $kind${cond(c)} THEN UPDATE SET ${(v.map(_.sql) ++ w.map(_.sql)).mkString(", ")}"
        case Ins(c, true) => s"WHEN $kind${cond(c)} THEN INSERT (a, v, w) VALUES (s.a, s.v, s.w)"
        case Ins(c, false) => s"WHEN $kind${cond(c)} THEN INSERT (a, v) VALUES (s.a, s.v)"
      }
    }

    /** The rows the clauses leave, worked out row by row; and the updated, deleted and inserted counts. */
    def model(
        target: Seq[R],
        source: Seq[R],
        matched: Seq[Action],
        notMatched: Seq[Action],
        bySource: Seq[Action]
    ): (Seq[R], (Long, Long, Long)) = {
      var updated, deleted, inserted = 0L
      def holds(c: Option[Cond], t: Option[R], s: Option[R]) = c.forall(_.holds(t, s))
      def apply(actions: Seq[Action], t: Option[R], s: Option[R]): Option[Option[R]] =
        actions.find {
          case Del(c) => holds(c, t, s)
          case Upd(c, _, _) => holds(c, t, s)
          case Ins(c, _) => holds(c, t, s)
        } match {
          case None => None // no clause: the row stays as it is
          case Some(Del(_)) => deleted += 1; Some(None)
          case Some(Upd(_, v, w)) =>
            updated += 1
            val row = t.get
            Some(Some((row._1, v.fold(row._2)(_.value(t, s)), w.fold(row._3)(_.value(t, s)))))
          case Some(Ins(_, withW)) =>
            inserted += 1
            val row = s.get
            Some(Some((row._1, row._2, if (withW) row._3 else None)))
        }
      val sourceByKey = source.map(r => r._1 -> r).toMap
      val kept = target.flatMap { t =>
        val s = sourceByKey.get(t._1)
        val outcome = if (s.isDefined) apply(matched, Some(t), s) else apply(bySource, Some(t), None)
        outcome.getOrElse(Some(t))
      }
      val targetKeys = target.map(_._1).toSet
      val added = source.filterNot(s => targetKeys(s._1)).flatMap(s => apply(notMatched, None, Some(s)).flatten)
      ((kept ++ added).sortBy(_._1), (updated, deleted, inserted))
    }

    /** Up to two clauses of a kind; as Spark requires, only the last may go without a condition. */
    def randomActions(random: Random, kind: String): Seq[Action] = {
      def maybe[T](options: Seq[T]): Option[T] =
        if (random.nextBoolean()) Some(options(random.nextInt(options.size))) else None
      val conditions = kind match {
        case "MATCHED" => matchedConditions
        case "NOT MATCHED" => sourceConditions
        case _ => targetConditions
      }
      def conditioned(action: Action): Action = {
        val c = Some(conditions(random.nextInt(conditions.size)))
        action match {
          case Del(None) => Del(c)
          case u @ Upd(None, _, _) => u.copy(when = c)
          case i @ Ins(None, _) => i.copy(when = c)
          case other => other
        }
      }
      val drawn = Seq.fill(random.nextInt(3)) {
        kind match {
          case "MATCHED" =>
            if (random.nextInt(3) == 0) Del(maybe(matchedConditions))
            else {
              val (v, w) = (maybe(matchedV), maybe(matchedW))
              Upd(maybe(matchedConditions), if (v.isEmpty && w.isEmpty) Some(matchedV.head) else v, w)
            }
          case "NOT MATCHED" => Ins(maybe(sourceConditions), random.nextBoolean())
          case _ =>
            if (random.nextBoolean()) Del(maybe(targetConditions))
            else Upd(maybe(targetConditions), Some(bySourceV).filter(_ => random.nextBoolean()), Some(bySourceW))
        }
      }
      drawn.dropRight(1).map(conditioned) ++ drawn.takeRight(1)
    }

    val rounds = 20
    for (layout <- Seq("CELLS", "PACKED")) {
      it(s"leaves exactly the rows the model leaves, $rounds random statements in LAYOUT $layout") {
        val t = uniqueName("merged")
        sql(s"""CREATE TABLE $t (a INT, v INT, w STRING, PRIMARY KEY (a))
               |MAPPED BY ($t, COLS=[v=f.v, w=${if (layout == "PACKED") "f" else "g"}.w]) LAYOUT $layout
               |SPLIT ON ((20), (40))""".stripMargin)
        val random = new Random(if (layout == "PACKED") 31 else 32)
        val strings = Seq("a", "b", "ab")
        def randomRow(a: Int): R = (
          a,
          if (random.nextInt(5) == 0) None else Some(random.nextInt(10)),
          if (random.nextInt(5) == 0) None else Some(strings(random.nextInt(strings.size)))
        )
        def rowOf(r: R) = Row(r._1, r._2.map(Integer.valueOf).orNull, r._3.orNull)
        val schema = spark.table(t).schema
        var truth: Seq[R] = random.shuffle((0 until 60).toList).take(40).sorted.map(randomRow)
        spark.createDataFrame(truth.map(rowOf).asJava, schema).write.insertInto(t)
        for (round <- 1 to rounds) {
          val source = random.shuffle((-10 until 70).toList).take(1 + random.nextInt(25)).map(randomRow)
          spark.createDataFrame(source.map(rowOf).asJava, schema).createOrReplaceTempView("merge_source")
          val (matched, notMatched, bySource) =
            (randomActions(random, "MATCHED"), randomActions(random, "NOT MATCHED"), randomActions(random, "BY SOURCE"))
          val clauses = matched.map(sqlOf("MATCHED", _)) ++ notMatched.map(sqlOf("NOT MATCHED", _)) ++
            bySource.map(sqlOf("NOT MATCHED BY SOURCE", _))
          if (clauses.nonEmpty) {
            val statement = s"MERGE INTO $t AS t USING merge_source AS s ON t.a = s.a ${clauses.mkString(" ")}"
            val (expected, (updated, deleted, inserted)) = model(truth, source, matched, notMatched, bySource)
            val settings = Seq(HBaseSQLConf.PackedUpdateMerge.key -> (round % 2 == 0).toString)
            withClue(s"#$round $statement\nsource $source\n") {
              withConf(settings: _*)(rows(statement)) shouldBe
                Seq(Row(updated + deleted + inserted, updated, deleted, inserted))
              rows(s"SELECT * FROM $t ORDER BY a") shouldBe expected.map(rowOf)
            }
            truth = expected
          }
        }
      }
    }
  }
}
