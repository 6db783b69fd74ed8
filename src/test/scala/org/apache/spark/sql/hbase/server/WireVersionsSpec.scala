// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import org.apache.hadoop.hbase.KeyValue
import org.apache.hadoop.hbase.client.Result
import org.apache.hadoop.hbase.exceptions.DeserializationException
import org.apache.hadoop.hbase.util.Bytes
import org.apache.hadoop.ipc.RemoteException
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.facts.WireRefusal
import org.apache.spark.sql.types.IntegerType

/**
 * The wire versions of the server jar's messages, without HBase: a jar reads every version from
 * the oldest to the newest, each in its own layout, and refuses others with a failure a client
 * tells by its type. Messages of another version are built here by hand, as that version's jar
 * would write them.
 */
class WireVersionsSpec extends AnyFunSpec with Matchers {
  private val codec = new BinaryKeyCodec(Seq(IntegerType))
  private val f = Bytes.toBytes("f")

  private def spec(version: Int, maxBytes: Long = 0, maxGroups: Int = 100) = new AggregateSpec(
    codec.sliceLayout,
    Array(Operand.cell(f, f, CellType.INT, 0, 0)),
    null,
    Array(0),
    Array(AggregateFunction.countRows()),
    maxGroups,
    50,
    maxBytes,
    version
  )

  private def rows(groups: Int): Seq[KeyValue] = (0 until groups).map(k =>
    new KeyValue(codec.encode(Seq(k)), f, f, Bytes.toBytes(k))
  )

  private def withVersion(bytes: Array[Byte], version: Int): Array[Byte] = {
    val b = bytes.clone(); Bytes.putInt(b, 0, version); b
  }

  describe("an aggregation") {
    it("is read in version 1, as a version 1 client writes it: without a byte cap") {
      // Version 1's layout is version 2's without the byte cap, the last 8 bytes.
      val v1 = withVersion(spec(2).toByteArray.dropRight(8), 1)
      val read = AggregateSpec.parseFrom(v1)
      read.version shouldBe 1
      read.maxBytes shouldBe 0
      read.toByteArray.toSeq shouldBe v1.toSeq
      spec(1).toByteArray.toSeq shouldBe v1.toSeq
    }

    it("carries its byte cap from version 2 on, and cannot be made with one in version 1") {
      AggregateSpec.parseFrom(spec(2, maxBytes = 12345).toByteArray).maxBytes shouldBe 12345
      AggregateSpec.carriesByteCap(1) shouldBe false
      an[IllegalArgumentException] should be thrownBy spec(1, maxBytes = 10)
      an[IllegalArgumentException] should be thrownBy spec(ServerJar.WIRE_VERSION + 1)
    }

    it("checks row keys from version 3 on: version 2's layout, then whether it checks and how") {
      val keyCheck = codec.keyCheck.get
      def checking(version: Int, skip: Boolean) = new AggregateSpec(
        codec.sliceLayout,
        Array(Operand.cell(f, f, CellType.INT, 0, 0)),
        null,
        Array(0),
        Array(AggregateFunction.countRows()),
        100,
        50,
        0,
        keyCheck,
        skip,
        version
      )
      val v3 = checking(3, skip = true).toByteArray
      withVersion(v3, 2).take(spec(2).toByteArray.length).toSeq shouldBe spec(2).toByteArray.toSeq
      AggregateSpec.parseFrom(v3).skipBadKeys shouldBe true
      AggregateSpec.parseFrom(spec(3).toByteArray).keyCheck shouldBe null
      AggregateSpec.checksKeys(2) shouldBe false
      an[IllegalArgumentException] should be thrownBy checking(2, skip = false)
    }

    it("of a newer version than the jar reads is refused as such, not as corruption") {
      val newer = withVersion(spec(ServerJar.WIRE_VERSION).toByteArray, ServerJar.WIRE_VERSION + 1) ++ Array[Byte](1, 2)
      val refused = the[WireVersionRefused] thrownBy AggregateSpec.parseFrom(newer)
      refused.version shouldBe ServerJar.WIRE_VERSION + 1
      the[WireVersionRefused] thrownBy AggregateSpec.parseFrom(withVersion(spec(1).toByteArray, 0))
    }
  }

  describe("an aggregate batch") {
    def batch(spec: AggregateSpec, groups: Int, end: Boolean): (Array[Byte], AggregateBatch) = {
      val aggregator = new RowAggregator(spec, new MemoryBudget(1L << 30))
      rows(groups).foreach(aggregator.add)
      if (end) aggregator.endOfRows()
      val bytes = aggregator.takeBatch()
      (bytes, AggregateBatch.read(spec, bytes))
    }

    it("comes back in the spec's version; version 1's has no reason, which reads as the end") {
      val (bytes, read) = batch(spec(1), 3, end = true)
      Bytes.toInt(bytes, 0) shouldBe 1
      // version, rows, groups: no reason byte between the rows and the groups.
      Bytes.toLong(bytes, 4) shouldBe 3
      Bytes.toInt(bytes, 12) shouldBe 3
      read.sentFor shouldBe AggregateBatch.ENDED
      read.keys.size shouldBe 3
    }

    it("says from version 2 on whether it was sent at the end, at the group cap or for memory") {
      batch(spec(2), 3, end = true)._2.sentFor shouldBe AggregateBatch.ENDED
      // Rows fold in once the next row starts: 5 rows make 4 groups.
      val capped = batch(spec(2, maxGroups = 4), 5, end = false)._2
      capped.sentFor shouldBe AggregateBatch.GROUP_CAP
      val tight = batch(spec(2, maxBytes = 1), 2, end = false)._2
      tight.sentFor shouldBe AggregateBatch.MEMORY
      tight.keys.size shouldBe 1
    }
  }

  describe("a scan filter") {
    val filter = (version: Int) =>
      new SkipScanFilter(codec.sliceLayout, null, Array.empty[Operand], null, null, null, version)

    it("is laid out alike in versions 1 and 2, and read back in the version it was written in") {
      val v2 = filter(2).toByteArray
      filter(1).toByteArray.toSeq shouldBe withVersion(v2, 1).toSeq
      SkipScanFilter.parseFrom(withVersion(v2, 1)).toByteArray.toSeq shouldBe withVersion(v2, 1).toSeq
    }

    it("of a newer version is refused with a failure whose cause is the refusal of that version") {
      val newer = withVersion(filter(ServerJar.WIRE_VERSION).toByteArray, ServerJar.WIRE_VERSION + 1)
      val refused = the[DeserializationException] thrownBy SkipScanFilter.parseFrom(newer)
      refused.getCause shouldBe a[WireVersionRefused]
      WireRefusal.ofVersion(refused) shouldBe true
    }
  }

  describe("a region server's versions") {
    it("travel in a layout every client reads, and say which version both sides read") {
      val answer = ServerVersions.ofThisJar().toCell(Bytes.toBytes("row"))
      val read = ServerVersions.from(Result.create(Array(answer)))
      (read.oldest, read.newest) shouldBe ((ServerJar.OLDEST_WIRE_VERSION, ServerJar.WIRE_VERSION))
      read.newestShared shouldBe ServerJar.WIRE_VERSION
      new ServerVersions(1, 1, "old").newestShared shouldBe 1
      new ServerVersions(1, ServerJar.WIRE_VERSION + 5, "new").newestShared shouldBe ServerJar.WIRE_VERSION
      new ServerVersions(ServerJar.WIRE_VERSION + 1, ServerJar.WIRE_VERSION + 5, "far").newestShared shouldBe -1
      ServerVersions.from(Result.create(Array[org.apache.hadoop.hbase.Cell](new KeyValue(
        Bytes.toBytes("row"),
        f,
        f,
        Bytes.toBytes(1)
      )))) shouldBe
        null
    }
  }

  describe("a refusal") {
    def remote(causes: String*) = new RemoteException(
      "org.apache.hadoop.hbase.DoNotRetryIOException",
      "java.lang.reflect.InvocationTargetException\n\tat a.b.C.d(C.java:1)\n" +
        causes.map(c => s"Caused by: $c: a message\n\tat a.b.C.d(C.java:2)\n").mkString
    )

    it("is told by the types of the remote failure's causes, not by its words") {
      val version = remote(classOf[DeserializationException].getName, classOf[WireVersionRefused].getName)
      WireRefusal.of(version) shouldBe true
      WireRefusal.ofVersion(version) shouldBe true
      // Jars before wire version 2 threw a class of their own.
      WireRefusal.ofVersion(remote("org.apache.spark.sql.hbase.server.Wire$OtherVersion")) shouldBe true
      val missing = remote(classOf[ClassNotFoundException].getName)
      WireRefusal.of(missing) shouldBe true
      WireRefusal.ofVersion(missing) shouldBe false
      val corrupt = remote(classOf[DeserializationException].getName)
      WireRefusal.of(corrupt) shouldBe false
      // A batch of Gets rebuilds the region server's failure as its class, with the trace as the message.
      val rebuilt =
        new org.apache.hadoop.hbase.DoNotRetryIOException(remote(classOf[WireVersionRefused].getName).getMessage)
      WireRefusal.ofVersion(rebuilt) shouldBe true
      // The words alone are not a refusal.
      WireRefusal.of(
        new java.io.IOException("DeserializationException: WireVersionRefused ClassNotFoundException")
      ) shouldBe
        false
    }
  }
}
