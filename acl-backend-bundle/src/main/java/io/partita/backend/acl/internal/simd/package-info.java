/** The vector width the ACL-style kernels use and their GEMM micro-kernel. */
package io.partita.backend.acl.internal.simd;
