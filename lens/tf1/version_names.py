"""tf.VERSION and the GraphDef version constants (also under tf.version): the TF API lens implements and the
GraphDef producer version lens writes (lens.framework.graph_io)."""
VERSION = "1.15.0"                      # the TF1 API lens follows; MetaGraphDefs record the same
GRAPH_DEF_VERSION = 27                  # versions.producer of every GraphDef lens writes
GRAPH_DEF_VERSION_MIN_CONSUMER = 0      # oldest GraphDef version lens reads
GRAPH_DEF_VERSION_MIN_PRODUCER = 0      # oldest producer whose GraphDefs lens accepts

__all__ = ["VERSION", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER"]
