// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import java.util.{List => JList}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.FileStatus
import org.apache.hadoop.mapreduce.JobContext
import org.apache.hadoop.mapreduce.lib.input.{FileInputFormat, TextInputFormat}

/**
 * Hadoop's text input over input paths that are already files (CsvInput lists them). It skips
 * FileInputFormat's listing, which with Hadoop security on asks MapReduce's TokenCache for file
 * system tokens renewable by YARN's ResourceManager, and fails without a YARN principal
 * ("Can't get Master Kerberos principal"), as on Kubernetes or a local master. Spark obtains the
 * tokens its executors need itself.
 */
class ListedFilesTextInputFormat extends TextInputFormat {
  override protected def listStatus(job: JobContext): JList[FileStatus] =
    FileInputFormat.getInputPaths(job).toSeq.map { path =>
      path.getFileSystem(job.getConfiguration).getFileStatus(path)
    }.asJava
}
