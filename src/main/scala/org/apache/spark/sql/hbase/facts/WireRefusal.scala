// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import org.apache.hadoop.ipc.RemoteException

import org.apache.spark.sql.hbase.common.Causes
import org.apache.spark.sql.hbase.server.WireVersionRefused

/**
 * Whether a region server refused what the server jar sends, told by the types of the failure's
 * causes, never by its wording. A region server's failure reaches the client with the class name
 * of what was thrown and its stack trace, whose "Caused by:" lines name each cause's class: as a
 * remote exception, or (for a batch of Gets) rebuilt as that class with the trace as its message.
 */
object WireRefusal {
  private val CausedBy = """(?m)^Caused by: ([\w.$]+)""".r

  // What region servers throw: a version this jar reads no more (or not yet), and, before wire
  // version 2, the same from older jars; a class they do not have.
  private val VersionRefusals =
    Set(classOf[WireVersionRefused].getName, "org.apache.spark.sql.hbase.server.Wire$OtherVersion")
  private val MissingClasses = Set(classOf[ClassNotFoundException].getName, classOf[NoClassDefFoundError].getName)

  /** The class names of a failure's causes, local and remote. */
  def causeClasses(e: Throwable): Seq[String] = Causes.of(e).flatMap { cause =>
    val thrown = cause match {
      case remote: RemoteException => remote.getClassName
      case local => local.getClass.getName
    }
    thrown +: Option(cause.getMessage).toSeq.flatMap(m => CausedBy.findAllMatchIn(m).map(_.group(1)))
  }

  /** A refusal of the server jar's bytes: a wire version it does not read, or a class it lacks. */
  def of(e: Throwable): Boolean = causeClasses(e).exists(c => VersionRefusals(c) || MissingClasses(c))

  /** A refusal of a wire version: an older one may be read. */
  def ofVersion(e: Throwable): Boolean = causeClasses(e).exists(VersionRefusals)
}
