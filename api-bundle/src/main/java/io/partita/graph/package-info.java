/**
 * The Graph API: logical tensors, ops, graphs, partitions, compiled partitions and tensors,
 * following the oneDNN Graph programming model.
 */
@Export
@Version("0.7.0")
package io.partita.graph;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
