// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.scalatest.TagAnnotation;

/**
 * Tags a suite that needs the embedded HBase (every {@link HBaseSuite}, by inheritance). The others
 * are pure: {@code SPARK_HBASE_TESTS=pure ./build/sbt test} runs only them, without starting HBase
 * or needing Python.
 */
@TagAnnotation
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE})
public @interface RequiresHBase {}
