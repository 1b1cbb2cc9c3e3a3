/**
 * The graph compiler for large fused partitions and dynamic shapes lands here.
 * This bundle is deliberately empty until then: it registers no service and claims no op.
 */
package io.partita.backend.compiler;
