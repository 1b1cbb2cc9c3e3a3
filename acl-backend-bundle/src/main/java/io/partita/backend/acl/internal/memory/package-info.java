/**
 * Working memory of the ACL-style operators, after Arm Compute Library's memory managers: a blob
 * lifetime manager packs auxiliary tensors whose lifetimes do not overlap into shared blobs, a pool
 * manager keeps free and reserved pools, and a memory manager (on-demand or cached) hands pools out.
 */
package io.partita.backend.acl.internal.memory;
