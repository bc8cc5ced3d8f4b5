# show_properties prints librdkafka's own CONFIGURATION table, as
# rd_kafka_conf_properties_show(FILE*) writes it, from the library the
# confluent-kafka wheel installed in this Python; its first line is
# "# confluent-kafka X (librdkafka Y)". cmd/genrdkafkaconfig runs it.
import ctypes
import glob
import os
import sys

import confluent_kafka

here = os.path.dirname(confluent_kafka.__file__)
libs = sorted(glob.glob(os.path.join(here, "..", "confluent_kafka.libs", "librdkafka*.so*")))
if not libs:
    sys.exit("no librdkafka*.so* beside confluent_kafka in " + here)
rdkafka = ctypes.CDLL(libs[0])
rdkafka.rd_kafka_version_str.restype = ctypes.c_char_p
rdkafka.rd_kafka_conf_properties_show.argtypes = [ctypes.c_void_p]
libc = ctypes.CDLL(None)
libc.fdopen.restype = ctypes.c_void_p
libc.fdopen.argtypes = [ctypes.c_int, ctypes.c_char_p]
libc.fclose.argtypes = [ctypes.c_void_p]

version = confluent_kafka.version()
if isinstance(version, tuple):
    version = version[0]
print("# confluent-kafka %s (librdkafka %s)" % (version, rdkafka.rd_kafka_version_str().decode()))
sys.stdout.flush()
fp = libc.fdopen(os.dup(sys.stdout.fileno()), b"w")
rdkafka.rd_kafka_conf_properties_show(fp)
libc.fclose(fp)
