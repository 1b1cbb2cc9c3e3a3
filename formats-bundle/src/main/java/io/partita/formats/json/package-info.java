/** Reading and writing graphs in oneDNN's graph JSON format (ONEDNN_GRAPH_DUMP=graph, benchdnn inputs). */
@Export
@Version("0.1.0")
package io.partita.formats.json;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
