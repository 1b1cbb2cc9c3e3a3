/** The graph-compiler backend: claims and compiles fused partitions (private to the bundle). */
package io.partita.backend.compiler.internal;
