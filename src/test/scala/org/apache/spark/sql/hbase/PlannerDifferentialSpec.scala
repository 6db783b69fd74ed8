package org.apache.spark.sql.hbase

import scala.util.Random

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.hbase.execution.HBaseSQLTableScan

/**
 * The key range planner against the truth: random WHERE clauses over a pre-split table must
 * return exactly what Spark returns over the same rows held in memory.
 */
class PlannerDifferentialSpec extends HBaseSuite {
  private lazy val table = {
    val t = uniqueName("diff")
    sql(s"""CREATE TABLE $t (a INT, b STRING, c BIGINT, v INT, PRIMARY KEY (a, b, c))
           |MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((-50), (0), (0, 'b'), (50))""".stripMargin)
    val random = new Random(7)
    val rows = (0 until 600).map { _ =>
      Row(random.nextInt(200) - 100, strings(random.nextInt(strings.size)), (random.nextInt(11) - 5).toLong,
        if (random.nextInt(5) == 0) null else Integer.valueOf(random.nextInt(20)))
    }
    val schema = spark.table(t).schema
    spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), schema).write.insertInto(t)
    // The truth: the same rows as HBase holds them (one per key), in Spark's memory.
    spark.table(t).collect().toSeq.let { stored =>
      spark.createDataFrame(spark.sparkContext.parallelize(stored, 2), schema).cache().createOrReplaceTempView(s"${t}_truth")
    }
    t
  }

  private val strings = Seq("", "a", "ab", "b", "ba", "é")

  private implicit class Let[A](a: A) { def let[B](f: A => B): B = f(a) }

  private def randomPredicate(random: Random, depth: Int): String = {
    def int = (random.nextInt(240) - 120).toString
    def str = s"'${strings(random.nextInt(strings.size))}'"
    def long = (random.nextInt(14) - 7).toString
    def atom: String = random.nextInt(9) match {
      case 0 => s"a ${Seq("=", "<", "<=", ">", ">=", "<>", "<=>")(random.nextInt(7))} $int"
      case 1 => s"b ${Seq("=", "<", "<=", ">", ">=", "<>")(random.nextInt(6))} $str"
      case 2 => s"c ${Seq("=", "<", ">=", "<>")(random.nextInt(4))} $long"
      case 3 => s"a IN (${Seq.fill(1 + random.nextInt(4))(int).mkString(", ")})"
      case 4 => s"b IN (${Seq.fill(1 + random.nextInt(3))(str).mkString(", ")})"
      case 5 => s"a BETWEEN $int AND $int"
      case 6 => s"v ${Seq("=", "<", ">")(random.nextInt(3))} ${random.nextInt(20)}"
      case 7 => Seq("v IS NULL", "v IS NOT NULL", "c IN (0, 1, NULL)", s"$int < a", "b LIKE 'a%'", "b LIKE 'é%'")(random.nextInt(6))
      case _ => s"a = $int AND b = $str"
    }
    if (depth == 0) atom
    else random.nextInt(4) match {
      case 0 => s"(${randomPredicate(random, depth - 1)}) AND (${randomPredicate(random, depth - 1)})"
      case 1 => s"(${randomPredicate(random, depth - 1)}) OR (${randomPredicate(random, depth - 1)})"
      case 2 => s"NOT (${randomPredicate(random, depth - 1)})"
      case _ => atom
    }
  }

  /** The scan, unless Spark proved the predicate false and planned no scan at all. */
  private def scanOf(df: DataFrame): Option[HBaseSQLTableScan] =
    df.queryExecution.executedPlan.collectFirst { case s: HBaseSQLTableScan => s }

  describe("random WHERE clauses over the composite key (a INT, b STRING, c BIGINT)") {
    it("return exactly the rows Spark finds in memory, with pushdown on and off") {
      val random = new Random(11)
      val t = table
      var pruned = 0
      (1 to 120).foreach { i =>
        val predicate = randomPredicate(random, 1 + random.nextInt(3))
        val truth = sql(s"SELECT * FROM ${t}_truth WHERE $predicate ORDER BY a, b, c").collect().toSeq
        val df = sql(s"SELECT * FROM $t WHERE $predicate")
        withClue(s"#$i WHERE $predicate\n${df.queryExecution.executedPlan}\n") {
          df.collect().toSeq shouldBe truth
        }
        if (scanOf(df).exists(_.metrics("numRegionsPruned").value > 0)) pruned += 1
      }
      withClue("some of the random predicates should prune regions: ")(pruned should be > 10)
      spark.conf.set(HBaseSQLConf.Pushdown.key, "false")
      try {
        val predicate = "a = 5 AND b = 'ab'"
        sql(s"SELECT * FROM $t WHERE $predicate").collect().toSeq shouldBe
          sql(s"SELECT * FROM ${t}_truth WHERE $predicate ORDER BY a, b, c").collect().toSeq
      } finally spark.conf.unset(HBaseSQLConf.Pushdown.key)
    }
  }

  describe("whole keys") {
    it("are read with batched Gets, and keys that are not stored are simply absent") {
      val predicate = "a IN (-100, 0, 7, 99) AND b IN ('', 'a', 'é') AND c IN (-5, 0, 5)"
      val truth = sql(s"SELECT * FROM ${table}_truth WHERE $predicate ORDER BY a, b, c").collect().toSeq
      val df = sql(s"SELECT * FROM $table WHERE $predicate")
      df.collect().toSeq shouldBe truth
      scanOf(df).get.metrics("numGets").value shouldBe 4 * 3 * 3
      val counted = sql(s"SELECT count(*) FROM $table WHERE $predicate")
      counted.head().getLong(0) shouldBe truth.size
    }
  }

  describe("region locations") {
    it("are cached for spark.sql.hbase.partition.expiration seconds, and a stale cache still reads every row") {
      val t = uniqueName("splitting")
      sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
      sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id AS INT) FROM range(0, 100)")
      sql(s"SELECT * FROM $t").rdd.getNumPartitions shouldBe 1
      val name = org.apache.hadoop.hbase.TableName.valueOf(t)
      withAdmin { admin =>
        admin.flush(name)
        admin.split(name, new codec.BinaryKeyCodec(Seq(org.apache.spark.sql.types.IntegerType)).encode(Seq(50)))
        val deadline = System.currentTimeMillis() + 60000
        while (admin.getRegions(name).size < 2 && System.currentTimeMillis() < deadline) Thread.sleep(200)
        admin.getRegions(name).size shouldBe 2
      }
      sql(s"SELECT * FROM $t").rdd.getNumPartitions shouldBe 1
      sql(s"SELECT count(*), sum(v) FROM $t").head() shouldBe Row(100L, 4950L)
      spark.conf.set(HBaseSQLConf.PartitionExpiration.key, "0")
      try {
        sql(s"SELECT * FROM $t").rdd.getNumPartitions shouldBe 2
        sql(s"SELECT count(*), sum(v) FROM $t WHERE k >= 40").head() shouldBe Row(60L, (40 until 100).sum.toLong)
      } finally spark.conf.unset(HBaseSQLConf.PartitionExpiration.key)
    }
  }

  describe("a selective predicate on the key") {
    it("reads only the regions that can hold matching rows, and EXPLAIN shows its key ranges") {
      val df = sql(s"SELECT * FROM $table WHERE a = 10 AND b IN ('a', 'b')")
      df.collect()
      val scan = scanOf(df).get
      scan.metrics("numRegions").value shouldBe 1
      scan.metrics("numRegionsPruned").value shouldBe 4
      val explained = df.queryExecution.explainString(org.apache.spark.sql.execution.SimpleMode)
      explained should include("2 key ranges (=10, =a), (=10, =b)")
      sql(s"SELECT count(*) FROM $table WHERE a >= 50").queryExecution.executedPlan.toString should include("1 key ranges")
    }
  }
}
