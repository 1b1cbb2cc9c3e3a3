/** Fused elementwise computations as expressions: what the code generator turns into classes. */
package io.partita.backend.compiler.internal.expr;
