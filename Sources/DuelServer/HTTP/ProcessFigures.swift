import Foundation

/// The process figures `/metrics` reports (Prometheus' standard `process_*` names), read from
/// `/proc/self` at scrape time: nothing to keep up to date between scrapes.
struct ProcessFigures {
    var residentBytes = 0
    var cpuSeconds = 0.0
    var openFDs = 0
    var maxFDs = 0
    var startTimeSeconds = 0.0

    static func read() -> ProcessFigures {
        var figures = ProcessFigures()
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = statm.split(separator: " ")
            if fields.count > 1, let pages = Int(fields[1]) { figures.residentBytes = pages * pageSize }
        }
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            // Fields after "(comm)": state is field 3, utime 14, stime 15, starttime 22.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 19, let user = Double(fields[11]), let system = Double(fields[12]),
               let started = Double(fields[19]) {
                figures.cpuSeconds = (user + system) / ticks
                figures.startTimeSeconds = bootTimeSeconds + started / ticks
            }
        }
        figures.openFDs = openDescriptors()
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        figures.maxFDs = limit.rlim_cur > UInt64(Int.max) ? Int.max : Int(limit.rlim_cur)
        return figures
    }

    /// Counts `/proc/self/fd` with readdir: no string per entry (a busy server has 19,000, and
    /// this runs on the libwebsockets thread). Less the one the listing itself opens.
    private static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            // Skip "." and "..".
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return max(0, count - 1)
    }

    /// Read once: the boot time does not change.
    private static let bootTimeSeconds: Double = readBootTimeSeconds()

    private static func readBootTimeSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return 0 }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    func render() -> String {
        """
        # HELP process_resident_memory_bytes Resident memory size in bytes.
        # TYPE process_resident_memory_bytes gauge
        process_resident_memory_bytes \(residentBytes)
        # HELP process_cpu_seconds_total User and system CPU time spent, in seconds.
        # TYPE process_cpu_seconds_total counter
        process_cpu_seconds_total \(cpuSeconds)
        # HELP process_open_fds Open file descriptors.
        # TYPE process_open_fds gauge
        process_open_fds \(openFDs)
        # HELP process_max_fds The open-file limit.
        # TYPE process_max_fds gauge
        process_max_fds \(maxFDs)
        # HELP process_start_time_seconds Start time of the process, in seconds since 1970.
        # TYPE process_start_time_seconds gauge
        process_start_time_seconds \(startTimeSeconds)

        """
    }
}

/// What `quizduel_build_info` reports.
public enum BuildInfo {
    /// The server's version; the protocol version is separate (`duel.v1`).
    public static let version = "1.1.0"
    public static let protocolVersion = "1"
    #if compiler(>=6.3)
    static let swift = "6.3"
    #else
    static let swift = "6.2"
    #endif

    static func render() -> String {
        """
        # HELP quizduel_build_info The server's build; the value is always 1.
        # TYPE quizduel_build_info gauge
        quizduel_build_info{version="\(version)",protocol="\(protocolVersion)",swift="\(swift)"} 1

        """
    }
}
