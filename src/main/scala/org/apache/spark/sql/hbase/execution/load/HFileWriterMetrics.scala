// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import java.lang.reflect.{InvocationHandler, Method, Proxy}

import org.apache.hadoop.hbase.io.{MetricsIO, MetricsIOSource, MetricsIOWrapper}

/**
 * HBase's HFile writer reports write latency to the region server's IO metrics, a singleton it
 * creates on first use. In a Spark JVM that creation fails: HBase's metrics classes sit in
 * Hadoop's packages, and with our jar loaded by Spark's child class loader they cannot reach
 * Hadoop's package-private classes. A Spark task has no region server metrics to feed anyway, so
 * the singleton is set, before any HFile is written, to one that discards what it is told.
 */
private[load] object HFileWriterMetrics {
  private lazy val installed: Unit = {
    val instance = classOf[MetricsIO].getDeclaredField("instance")
    instance.setAccessible(true)
    classOf[MetricsIO].synchronized {
      if (instance.get(null) == null) {
        val create = classOf[MetricsIO].getDeclaredConstructor(classOf[MetricsIOSource], classOf[MetricsIOWrapper])
        create.setAccessible(true)
        instance.set(
          null,
          create.newInstance(discarding(classOf[MetricsIOSource]), discarding(classOf[MetricsIOWrapper]))
        )
      }
    }
  }

  def install(): Unit = installed

  private def discarding[T](interface: Class[T]): T = {
    val handler: InvocationHandler = (proxy: Any, method: Method, args: Array[AnyRef]) =>
      method.getName match {
        case "toString" => s"discarding ${interface.getSimpleName}"
        case "hashCode" => Integer.valueOf(System.identityHashCode(proxy))
        case "equals" => java.lang.Boolean.valueOf(args(0).asInstanceOf[AnyRef] eq proxy.asInstanceOf[AnyRef])
        case _ => zeroOf(method.getReturnType)
      }
    interface.cast(Proxy.newProxyInstance(interface.getClassLoader, Array[Class[_]](interface), handler))
  }

  private def zeroOf(t: Class[_]): AnyRef =
    if (!t.isPrimitive || t == Void.TYPE) null
    else if (t == java.lang.Boolean.TYPE) java.lang.Boolean.FALSE
    else if (t == java.lang.Long.TYPE) java.lang.Long.valueOf(0L)
    else if (t == java.lang.Double.TYPE) java.lang.Double.valueOf(0.0)
    else if (t == java.lang.Float.TYPE) java.lang.Float.valueOf(0f)
    else if (t == java.lang.Character.TYPE) java.lang.Character.valueOf(0.toChar)
    else if (t == java.lang.Byte.TYPE) java.lang.Byte.valueOf(0.toByte)
    else if (t == java.lang.Short.TYPE) java.lang.Short.valueOf(0.toShort)
    else java.lang.Integer.valueOf(0)
}
