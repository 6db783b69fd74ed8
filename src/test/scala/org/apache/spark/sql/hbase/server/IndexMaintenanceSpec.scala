// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import java.util.concurrent.{Executors, TimeUnit}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{Cell, CellBuilderFactory, CellBuilderType, HConstants, TableName}
import org.apache.hadoop.hbase.client.{
  Append, CheckAndMutate, ColumnFamilyDescriptorBuilder, Connection, ConnectionFactory, CoprocessorDescriptorBuilder,
  Delete, Increment, Put, RowMutations, Scan, Table, TableDescriptorBuilder
}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.{HBaseSuite, Waits}

/**
 * The server jar's index maintenance in real region servers, driven by a plain HBase client that
 * knows nothing of the indexes: after every kind of write, each index table holds exactly the rows
 * its data table gives, all verified, with their covered cells. The expected index rows are worked
 * out here from the documented layout (docs/indexes.md), not by the code under test.
 */
class IndexMaintenanceSpec extends HBaseSuite {
  import IndexMaintenanceSpec.Tables

  private val f = Bytes.toBytes("f")
  private val email = Bytes.toBytes("email")
  private val age = Bytes.toBytes("age")
  private val name = Bytes.toBytes("name")

  private def emailOperand = Operand.cell(f, email, CellType.BYTES, 0, 0)
  private def ageOperand = Operand.cell(f, age, CellType.LONG, 0, 0)

  /** A data table with two indexes; `ttlSeconds` for a TTL on its family. */
  private def newTables(ttlSeconds: Option[Int] = None): Tables = {
    val t = Tables(uniqueName("indexed"), uniqueName("by_email"), uniqueName("by_age_email"))
    withAdmin { admin =>
      for (index <- Seq(t.byEmail, t.byAgeEmail)) {
        admin.createTable(TableDescriptorBuilder.newBuilder(TableName.valueOf(index))
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(IndexSpec.STATUS_FAMILY))
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(f)).build())
      }
      val specs = java.util.List.of(
        new IndexSpec(t.byEmail, Array(emailOperand), Array(f), Array(name)),
        new IndexSpec(t.byAgeEmail, Array(ageOperand, emailOperand), Array.empty, Array.empty)
      )
      val observer = CoprocessorDescriptorBuilder.newBuilder(ServerJar.INDEX_MAINTENANCE_OBSERVER)
        .setProperty(IndexSpec.PROPERTY, IndexSpec.toProperty(specs, ServerJar.WIRE_VERSION))
        .setProperty(IndexMaintenanceObserver.LOCK_WAIT_PROPERTY, "20000")
        .setProperty(IndexMaintenanceObserver.WRITE_TIMEOUT_PROPERTY, "3000").build()
      admin.createTable(
        TableDescriptorBuilder.newBuilder(TableName.valueOf(t.data))
          .setColumnFamily(ttlSeconds.foldLeft(ColumnFamilyDescriptorBuilder.newBuilder(f).setMaxVersions(3))(
            _.setTimeToLive(_)
          ).build())
          .setCoprocessor(observer).build(),
        Array(Bytes.toBytes("r5"))
      )
    }
    t
  }

  // --- The expected index, from the layout: per column 0x00 for NULL, else 0x01 and the value's
  // order-preserving bytes (text escaped and terminated, a LONG big-endian with its sign bit
  // flipped); then the data row key.

  private def textPart(value: Option[Array[Byte]]): Array[Byte] = value match {
    case None => Array[Byte](0)
    case Some(v) => Array[Byte](1) ++ v.flatMap(b => if (b == 0) Array[Byte](0, -1) else Array(b)) ++ Array[Byte](0, 0)
  }

  private def longPart(value: Option[Array[Byte]]): Array[Byte] = value match {
    case Some(v) if v.length == 8 => Array[Byte](1) ++ Bytes.toBytes(Bytes.toLong(v) ^ Long.MinValue)
    case _ => Array[Byte](0)
  }

  /** An index row: its key, its status and its covered cells, as strings to compare and print. */
  private type IndexRows = Map[String, (Byte, Map[String, String])]

  private def expected(t: Tables): (IndexRows, IndexRows) = withTable(t.data) { table =>
    val rows = table.getScanner(new Scan()).asScala.toSeq
    def entry(key: Array[Byte], covered: Map[String, String]) = Bytes.toStringBinary(key) ->
      (IndexSpec.VERIFIED, covered)
    val byEmail = rows.flatMap { r =>
      Option(r.getValue(f, email)).map { e =>
        entry(textPart(Some(e)) ++ r.getRow, Option(r.getValue(f, name)).map(n => "f:name" -> Bytes.toString(n)).toMap)
      }
    }.toMap
    val byAgeEmail = rows.flatMap { r =>
      val (a, e) = (Option(r.getValue(f, age)), Option(r.getValue(f, email)))
      if (a.isEmpty && e.isEmpty) None else Some(entry(longPart(a) ++ textPart(e) ++ r.getRow, Map.empty))
    }.toMap
    (byEmail, byAgeEmail)
  }

  private def actual(index: String): IndexRows = withTable(index) { table =>
    table.getScanner(new Scan()).asScala.map { r =>
      val covered = r.rawCells().toSeq.filterNot(c =>
        Bytes.equals(
          c.getFamilyArray,
          c.getFamilyOffset,
          c.getFamilyLength,
          IndexSpec.STATUS_FAMILY,
          0,
          IndexSpec.STATUS_FAMILY.length
        )
      ).map { c =>
        s"${Bytes.toString(c.getFamilyArray, c.getFamilyOffset, c.getFamilyLength)}:" +
          s"${Bytes.toString(c.getQualifierArray, c.getQualifierOffset, c.getQualifierLength)}" ->
          Bytes.toString(c.getValueArray, c.getValueOffset, c.getValueLength)
      }.toMap
      Bytes.toStringBinary(r.getRow) -> (r.getValue(IndexSpec.STATUS_FAMILY, IndexSpec.STATUS)(0), covered)
    }.toMap
  }

  private def assertIndexesMatch(t: Tables, step: String): Unit = {
    val (byEmail, byAgeEmail) = expected(t)
    withClue(s"after $step, index on (email): ")(actual(t.byEmail) shouldBe byEmail)
    withClue(s"after $step, index on (age, email): ")(actual(t.byAgeEmail) shouldBe byAgeEmail)
  }

  private def row(i: Int) = Bytes.toBytes(s"r$i")
  private def text(s: String) = Bytes.toBytes(s)

  describe("an index kept by the region servers") {
    it("equals what its data rows give after a plain client's every kind of write") {
      val t = newTables()
      withTable(t.data) { table =>
        table.put((0 until 10).map { i =>
          val put = new Put(row(i)).addColumn(f, email, text(s"user$i@x")).addColumn(f, name, text(s"name $i"))
          if (i % 3 == 0) put else put.addColumn(f, age, Bytes.toBytes(20L + i))
        }.asJava)
        assertIndexesMatch(t, "a batch of puts")

        table.put(new Put(row(1)).addColumn(f, email, text("changed@x")))
        table.put(new Put(row(2)).addColumn(f, name, text("renamed")))
        table.put(new Put(row(3)).addColumn(f, email, text("a\u0000zero@x")))
        assertIndexesMatch(t, "puts that change an indexed, a covered and a text-with-zero value")

        table.put(new Put(row(4)).addColumn(f, email, 1L, text("older@x")))
        assertIndexesMatch(t, "a put of an older version, which does not change the row")

        table.delete(new Delete(row(1)).addColumn(f, email))
        assertIndexesMatch(t, "a delete of the latest version, which uncovers the older one")

        table.delete(new Delete(row(4)).addColumns(f, email))
        assertIndexesMatch(t, "a delete of every version of an indexed column")

        table.delete(new Delete(row(5)).addFamily(f))
        table.delete(new Delete(row(6)))
        assertIndexesMatch(t, "a family delete and a row delete")

        val stamp = table.get(new org.apache.hadoop.hbase.client.Get(row(7))).getColumnLatestCell(f, email).getTimestamp
        table.delete(new Delete(row(7)).addFamilyVersion(f, stamp))
        assertIndexesMatch(t, "a delete of one version of a family")

        // One batch, read at once: the delete's row with every version, the put's with its newest only.
        table.put(new Put(row(2)).addColumn(f, email, text("second@x")))
        table.batch(
          java.util.List.of(new Delete(row(2)).addColumn(f, email), new Put(row(3)).addColumn(f, email, text("b@x"))),
          new Array[AnyRef](2)
        )
        assertIndexesMatch(t, "a batch of a delete that uncovers an older version and a put over a row with two")

        table.increment(new Increment(row(8)).addColumn(f, age, 5L))
        table.increment(new Increment(row(0)).addColumn(f, age, 7L)) // no age before
        table.append(new Append(row(9)).addColumn(f, email, text(".org")))
        assertIndexesMatch(t, "increments and an append")

        val passed = table.checkAndMutate(CheckAndMutate.newBuilder(row(2)).ifEquals(f, name, text("renamed"))
          .build(new Put(row(2)).addColumn(f, email, text("checked@x"))))
        val failed = table.checkAndMutate(CheckAndMutate.newBuilder(row(8)).ifEquals(f, name, text("nobody"))
          .build(new Put(row(8)).addColumn(f, email, text("never@x"))))
        (passed.isSuccess, failed.isSuccess) shouldBe ((true, false))
        assertIndexesMatch(t, "a check-and-mutate that passed and one that failed")

        table.mutateRow(RowMutations.of(java.util.List.of(
          new Put(row(9)).addColumn(f, age, Bytes.toBytes(99L)),
          new Delete(row(9)).addColumns(f, email)
        )))
        table.put(new Put(row(0)).addColumn(f, age, text("not 8 bytes")))
        assertIndexesMatch(t, "a put and a delete in one row mutation, and a LONG cell of the wrong width")
      }
    }

    it("equals the data after puts into rows that hold nothing to read, where the put is not what the row then has") {
      val t = newTables()
      withTable(t.data) { table =>
        val later = System.currentTimeMillis() + 3600 * 1000L
        // Delete markers newer than the puts that follow: the rows read empty before and after.
        table.delete(new Delete(row(1), later))
        table.delete(new Delete(row(2)).addColumns(f, email, later))
        table.put(java.util.List.of(
          new Put(row(1)).addColumn(f, email, text("masked@x")).addColumn(f, age, Bytes.toBytes(1L)),
          new Put(row(2)).addColumn(f, email, text("masked too@x")).addColumn(f, name, text("kept"))
        ))
        withClue("the markers hide the puts: ")(
          table.get(new org.apache.hadoop.hbase.client.Get(row(1))).isEmpty shouldBe true
        )
        assertIndexesMatch(t, "puts under newer delete markers")

        // Two versions of a column in one put, the newer first; and two puts of one new row in one batch.
        table.put(new Put(row(3)).addColumn(f, email, 20L, text("newer@x")).addColumn(f, email, 10L, text("older@x")))
        table.batch(
          java.util.List.of(
            new Put(row(4)).addColumn(f, email, text("first@x")),
            new Put(row(4)).addColumn(f, email, text("second@x")).addColumn(f, age, Bytes.toBytes(4L))
          ),
          new Array[AnyRef](2)
        )
        assertIndexesMatch(t, "a put of two versions of a column, and two puts of a new row in one batch")

        // A put that carries a family's delete marker of its own, newer than its values.
        val marker = CellBuilderFactory.create(CellBuilderType.DEEP_COPY).setRow(row(7)).setFamily(f)
          .setQualifier(Array.emptyByteArray).setTimestamp(later).setType(Cell.Type.DeleteFamily).build()
        table.put(new Put(row(7)).addColumn(f, email, text("hidden@x")).addColumn(f, name, text("seven")).add(marker))
        withClue("the put's own marker hides its values: ")(
          table.get(new org.apache.hadoop.hbase.client.Get(row(7))).isEmpty shouldBe true
        )
        assertIndexesMatch(t, "a put with a delete marker among its cells")
      }
      val expiring = newTables(ttlSeconds = Some(3600))
      withTable(expiring.data) { table =>
        // Older than the family's TTL as it is written: there is nothing to read, nor to index.
        val old = System.currentTimeMillis() - 2 * 3600 * 1000L
        table.put(new Put(row(5)).addColumn(f, email, old, text("expired@x")).addColumn(f, name, old, text("gone")))
        table.put(new Put(row(6)).addColumn(f, email, text("alive@x")))
        withClue("the old put is not there to read: ")(
          table.get(new org.apache.hadoop.hbase.client.Get(row(5))).isEmpty shouldBe true
        )
        assertIndexesMatch(expiring, "a put older than the family's TTL, and one within it")
      }
    }

    it("equals the data that writers racing on the same rows left") {
      val t = newTables()
      val pool = Executors.newFixedThreadPool(4)
      try {
        val writers = (0 until 4).map { w =>
          pool.submit(new Runnable {
            def run(): Unit = withTable(t.data) { table =>
              for (round <- 0 until 25) {
                val puts = (0 until 8).map(i =>
                  new Put(row(i)).addColumn(
                    f,
                    email,
                    text(s"w$w-$round@x")
                  ).addColumn(f, age, Bytes.toBytes(round.toLong))
                    .addColumn(f, name, text(s"writer $w"))
                )
                table.put(puts.asJava)
                if (round % 5 == w) table.delete(new Delete(row(round % 8)))
              }
            }
          })
        }
        writers.foreach(_.get(120, TimeUnit.SECONDS))
      } finally pool.shutdownNow()
      assertIndexesMatch(t, "four writers' puts and deletes to the same eight rows")
    }

    it("keeps every index row verified while the data's and the index's regions move between region servers") {
      val t = newTables()
      val stop = new AtomicBoolean(false)
      val (batches, moves) = (new AtomicInteger(), new AtomicInteger())
      val pool = Executors.newFixedThreadPool(2)
      try {
        // Two writers changing the indexed values of rows in both data regions, all the time.
        val writers = (0 until 2).map { w =>
          pool.submit(new Runnable {
            def run(): Unit = withTable(t.data) { table =>
              var round = 0
              while (!stop.get()) {
                round += 1
                table.put((0 until 10).map(i =>
                  new Put(row(w * 10 + i)).addColumn(
                    f,
                    email,
                    text(s"w$w-$round@x")
                  ).addColumn(f, age, Bytes.toBytes(round.toLong))
                ).asJava)
                batches.incrementAndGet()
              }
            }
          })
        }
        Waits.until("the writers have begun")(batches.get() > 10)
        // As the balancer does: each region of the data table and of an index to another server, in turns.
        withAdmin { admin =>
          val servers = admin.getRegionServers.asScala.toSeq.sortBy(_.toString)
          for (turn <- 1 to 3; table <- Seq(t.data, t.byEmail)) {
            admin.getRegions(TableName.valueOf(table)).asScala.foreach { region =>
              val before = batches.get()
              admin.move(region.getEncodedNameAsBytes, servers((turn + moves.get()) % servers.size))
              moves.incrementAndGet()
              Waits.until(s"a write after moving ${region.getRegionNameAsString}")(batches.get() > before + 2)
            }
          }
        }
        stop.set(true)
        writers.foreach(_.get(120, TimeUnit.SECONDS))
      } finally { stop.set(true); pool.shutdownNow() }
      withClue("regions moved: ")(moves.get() should be >= 9)
      assertIndexesMatch(t, s"${batches.get()} batches of writes while regions moved ${moves.get()} times")
    }

    it("fails a write whose index rows cannot be written, naming the index table, and keeps its data out") {
      val t = newTables()
      withAdmin(_.disableTable(TableName.valueOf(t.byEmail)))
      val conf = cluster.toConfiguration
      conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 1)
      val connection: Connection = ConnectionFactory.createConnection(conf)
      try {
        val table: Table = connection.getTable(TableName.valueOf(t.data))
        val failure = intercept[java.io.IOException](table.put(new Put(row(1)).addColumn(f, email, text("lost@x"))))
        failure.getMessage should include(t.byEmail)
        failure.getMessage should include("the write was not applied")
        table.get(new org.apache.hadoop.hbase.client.Get(row(1))).isEmpty shouldBe true
        table.close()
      } finally connection.close()
      withAdmin(_.enableTable(TableName.valueOf(t.byEmail)))
      actual(t.byAgeEmail).values.map(_._1).toSet should not contain IndexSpec.VERIFIED
      withTable(t.data)(_.put(new Put(row(1)).addColumn(f, email, text("kept@x"))))
      assertIndexesMatch(t, "the index table is back")
    }
  }
}

object IndexMaintenanceSpec {

  /** Index `byEmail` on (email STRING) covering name; index `byAgeEmail` on (age LONG, email). */
  final case class Tables(data: String, byEmail: String, byAgeEmail: String)
}
