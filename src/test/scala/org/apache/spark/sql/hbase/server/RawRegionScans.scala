// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import scala.collection.mutable.ArrayBuffer
import scala.util.control.NonFatal

import org.apache.hadoop.hbase.{ServerName, TableName}
import org.apache.hadoop.hbase.client.{ClusterConnection, Result, Scan}
import org.apache.hadoop.hbase.shaded.protobuf.{ProtobufUtil, RequestConverter, ResponseConverter}
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.{ScanRequest, ScanResponse}
import org.apache.hadoop.hbase.shaded.protobuf.generated.FilterProtos
import org.apache.hbase.thirdparty.com.google.protobuf.{ByteString, ServiceException}

/**
 * Scans the first region of a table the way the region server hears a client: one RPC per call,
 * no retries, and a filter that is any class name with any bytes. The plain client would
 * serialize a Filter object itself, so hostile bytes could never carry our filter's name.
 */
final class RawRegionScans(connection: ClusterConnection, table: TableName, callTimeoutMillis: Int) {
  private val location = connection.getRegionLocator(table).getRegionLocation(Array.emptyByteArray, true)
  val server: ServerName = location.getServerName
  private val stub = connection.getClient(server)
  private val region = location.getRegion.getRegionName

  /** The rows of `scan`, or the message of the region server's refusal. */
  def scan(scan: Scan, filter: Option[(String, Array[Byte])] = None): Either[String, Seq[Result]] =
    attempt(scan, filter).left.map(e => String.valueOf(e.getMessage))

  /** The rows of `scan`, or the region server's refusal as the HBase client raises it. */
  def attempt(scan: Scan, filter: Option[(String, Array[Byte])] = None): Either[Throwable, Seq[Result]] = {
    val opening = RequestConverter.buildScanRequest(region, scan, RawRegionScans.RowsPerCall, false)
    val request = filter.fold(opening) { case (name, bytes) =>
      val proto = FilterProtos.Filter.newBuilder().setName(name).setSerializedFilter(ByteString.copyFrom(bytes))
      opening.toBuilder.setScan(opening.getScan.toBuilder.setFilter(proto)).build()
    }
    var scannerId: Option[Long] = None
    try {
      val results = ArrayBuffer[Result]()
      var response = call(request, results)
      var calls = 1
      // Heartbeats and time slices end a call early; the region's end ends the scan.
      while (response.getMoreResultsInRegion && response.hasScannerId) {
        scannerId = Some(response.getScannerId)
        require(calls < 10000, "a scan of a small region that never ends")
        response = call(
          RequestConverter.buildScanRequest(response.getScannerId, RawRegionScans.RowsPerCall, false, false),
          results
        )
        calls += 1
      }
      scannerId = None
      Right(results.toSeq)
    } catch {
      case e: ServiceException => Left(ProtobufUtil.handleRemoteException(e))
    } finally scannerId.foreach(close)
  }

  private def call(request: ScanRequest, results: ArrayBuffer[Result]): ScanResponse = {
    val controller = connection.getRpcControllerFactory.newController()
    controller.setCallTimeout(callTimeoutMillis)
    val response = stub.scan(controller, request)
    results ++= ResponseConverter.getResults(controller.cellScanner(), response)
    response
  }

  private def close(scannerId: Long): Unit =
    try stub.scan(
        connection.getRpcControllerFactory.newController(),
        RequestConverter.buildScanRequest(scannerId, 0, true, false)
      )
    catch { case NonFatal(_) => () } // the region server forgets it after its lease anyway
}

object RawRegionScans {
  private val RowsPerCall = 10000
}
