/**
 * Which ops the gpu engine takes (claims: MatMul or an elementwise op with its chain of
 * elementwise post-ops, and single ops) and how a claimed partition becomes kernel launches.
 */
package io.partita.gpu.internal.plan;
