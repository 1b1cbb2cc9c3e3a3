/** Bytecode generation (ClassFile API, hidden classes) of fused elementwise loops over the Vector API. */
package io.partita.backend.compiler.internal.codegen;
