/** Single-precision matrix multiplication: packed panels, a register-blocked micro-kernel, cache blocking. */
package io.partita.backend.dnnl.internal.gemm;
