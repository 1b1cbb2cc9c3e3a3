package io.partita.backend.acl.internal.ops;

import java.util.List;

import io.partita.backend.acl.internal.memory.AuxTensor;

/**
 * A configured ACL-style function: shapes fixed at creation, auxiliary tensors declared with
 * their lifetimes (the memory manager lays pools out from them), then run any number of times,
 * concurrently, each run in its own pool.
 */
public interface Operator {

    List<AuxTensor> auxTensors();

    void run(Run run);
}
