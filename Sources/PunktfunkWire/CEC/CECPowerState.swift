/// The box's power as the bus sees it: the [Power Status] a <Give Device Power Status> is
/// answered with (CEC 13.14; the values of CEC 17 "Power Status": On, Standby, In transition
/// Standby to On, In transition On to Standby). Pure.
///
/// The bus asks (`request`), the box decides and says where it ended up (`settle`): a request
/// puts the status into its transition at once — so a TV polling the status right after its
/// <Standby> sees the box on its way — and the box's answer ends the transition. A request the
/// status already goes toward changes nothing: a second <Standby> is not a toggle
/// (cec-compliance's "Repeated Standby message does not wake up").
public struct CECPowerState: Sendable, Equatable {
    /// A [Power Status] value (`CECPowerStatus`).
    public private(set) var status: UInt8 = CECPowerStatus.on

    public enum Request: Sendable, Equatable { case standby, wake }

    public init() {}

    /// On, and not leaving it: the box may initiate messages (CEC 13.3: a device in standby
    /// only answers).
    public var isOn: Bool { status == CECPowerStatus.on }

    /// In standby or going there.
    public var isAsleep: Bool { status == CECPowerStatus.standby || status == CECPowerStatus.inTransitionToStandby }

    /// The bus asks for `request`. - Returns: whether the box has to act on it (false: it is
    /// there already, or on its way).
    public mutating func request(_ request: Request) -> Bool {
        switch request {
        case .standby:
            guard !isAsleep else { return false }
            status = CECPowerStatus.inTransitionToStandby
        case .wake:
            guard isAsleep else { return false }
            status = CECPowerStatus.inTransitionToOn
        }
        return true
    }

    /// The box is on (`standby` false) or in standby now.
    public mutating func settle(standby: Bool) {
        status = standby ? CECPowerStatus.standby : CECPowerStatus.on
    }
}
