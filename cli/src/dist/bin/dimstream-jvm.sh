# shellcheck shell=bash
# The JVM both launchers start (./dimstream of a checkout, bin/dimstream of the distribution), in
# one place: they source this file and call dimstream_jvm (it runs nothing on its own).
#
# dimstream_jvm JAVA CLASSPATH ARCHIVE_DIR VERB [ARGS...]
#   runs `JAVA <options> JAVA_OPTS -cp CLASSPATH io.dimstream.cli.DimstreamCli VERB ARGS...`, and is
#   the launcher's last command (exec, except for the run that writes the class-data archive).
#   ARCHIVE_DIR holds the class-data-sharing archive; the jars it depends on are CLASSPATH's.
dimstream_jvm() {
  local java="$1" cp="$2" cds_dir="$3"; shift 3
  local verb="${1:-}"
  local -a opts=()
  # Default heap, unless JAVA_OPTS sets one: 512 MiB for the service verbs (what the benchmarks
  # measured: the service's whole RSS stays under 1 GiB), 1 GiB for `demo`, whose JVM also holds the
  # embedded broker. Without it a JVM takes up to a quarter of the machine's memory and grows into it.
  # DIMSTREAM_HEAP overrides the size (e.g. DIMSTREAM_HEAP=2g).
  case " ${JAVA_OPTS:-} " in
    *" -Xmx"*|*"MaxRAMPercentage"*|*"MaxHeapSize"*) ;;
    *) if [[ "$verb" == demo ]]; then opts+=("-Xmx${DIMSTREAM_HEAP:-1g}"); else opts+=("-Xmx${DIMSTREAM_HEAP:-512m}"); fi ;;
  esac
  # glibc gives each thread that allocates its own malloc arena (up to 8 per core); RocksDB and
  # the Kafka clients allocate from many threads, and the arenas' fragmentation shows as RSS that
  # creeps up. Two arenas bound it, as the Kafka Streams and RocksDB guides advise; a set value wins.
  export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
  # The JVM by verb. The service verbs (run, admin, demo) run for days and keep the JVM's defaults
  # (G1, and C2 compiling the hot paths). The other verbs (load, replay, check, ...) are commands
  # that end; measured on 2 cores (docs/benchmarks.md, LoadBenchmark), C2's compiler threads and
  # G1's concurrent ones took CPU a 100,000-change load needed more (C1 only: 1.34x, the serial
  # collector: 1.14x), and for 500,000 changes C1 only was no slower. Options in JAVA_OPTS win.
  case "$verb" in
    run|admin|demo|"") ;;
    *) case " ${JAVA_OPTS:-} " in *"Tiered"*) ;; *) opts+=(-XX:TieredStopAtLevel=1) ;; esac
       case " ${JAVA_OPTS:-} " in *"GC "*|*"GC="*|*"+Use"*"GC"*) ;; *) opts+=(-XX:+UseSerialGC) ;; esac ;;
  esac
  # Class data sharing (AppCDS): a command maps the classes an earlier one loaded, parsed and
  # verified from an archive instead of reading them from the jars again (0.4-0.5 s of a 1.5 s start
  # here). The first `load` of a build writes it at its exit (-XX:ArchiveClassesAtExit, a second or
  # two once); the JVM checks it against the jars and ignores it when they changed or it is damaged.
  # DIMSTREAM_CDS=0 turns it off; it is skipped when JAVA_OPTS names an archive or the directory is
  # not writable (the Docker image). It is skipped too when JAVA_OPTS starts a flight recording or
  # an agent: with a class-file-load hook active, OpenJDK 17.0.15 dies (SIGSEGV in
  # KlassFactory::check_shared_class_file_load_hook) mapping this dynamic archive's classes, seen
  # with JAVA_OPTS=-XX:StartFlightRecording on every `load` (LauncherIT).
  local archive="$cds_dir/dimstream.jsa" dump="" entry
  local -a entries=() jars=()
  IFS=':' read -r -a entries <<< "$cp"
  for entry in "${entries[@]}"; do jars+=("${entry%/\*}"); done  # lib/* -> the directory lib
  local hooked=0
  case " ${JAVA_OPTS:-} " in *"FlightRecord"*|*" -javaagent"*|*" -agentlib"*|*" -agentpath"*) hooked=1 ;; esac
  if [[ "${DIMSTREAM_CDS:-1}" != 0 && $hooked == 0 && " ${JAVA_OPTS:-} " != *"Archive"* && " ${JAVA_OPTS:-} " != *"Xshare"* ]]; then
    if [[ -f "$archive" && -z "$(find "${jars[@]}" -maxdepth 1 -name '*.jar' -newer "$archive" -print -quit 2>/dev/null)" ]]; then
      opts+=(-XX:SharedArchiveFile="$archive" -Xlog:cds=off -Xlog:cds+dynamic=off)
    elif [[ "$verb" == load && -w "$cds_dir" ]]; then
      dump="$archive.$$.tmp"
      opts+=(-XX:ArchiveClassesAtExit="$dump" -Xlog:cds=off -Xlog:cds+dynamic=off)
    fi
  fi
  local -a cmd=("$java" ${opts[@]+"${opts[@]}"})
  # shellcheck disable=SC2206 # JAVA_OPTS holds several words on purpose
  cmd+=(${JAVA_OPTS:-} -cp "$cp" io.dimstream.cli.DimstreamCli "$@")
  if [[ -z "$dump" ]]; then
    exec "${cmd[@]}"
  fi
  local rc=0
  "${cmd[@]}" || rc=$?
  if [[ -s "$dump" ]]; then mv -f "$dump" "$archive"; fi
  rm -f "$dump"
  exit "$rc"
}
