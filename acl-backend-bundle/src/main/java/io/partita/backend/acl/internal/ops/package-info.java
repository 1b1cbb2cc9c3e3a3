/** The ACL-style operators: each declares its auxiliary tensors with lifetimes, then runs in a reserved pool. */
package io.partita.backend.acl.internal.ops;
