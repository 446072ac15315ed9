// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DepositForwarder
/// @notice The contract behind a per-payment deposit address. The address is known before the
///         contract exists (CREATE2 from `ForwarderFactory`), so customers pay into it first and
///         the factory deploys and sweeps it later in one operator transaction. It holds no key
///         and never needs gas of its own. Native coin sent here (by mistake, or before the
///         contract existed: CREATE2 keeps an address's balance) is moved out the same way.
/// @dev No constructor arguments: the init code, and so its hash, is the same for every
///      payment and every factory, which lets deposit addresses be computed off-chain.
contract DepositForwarder {
    /// @notice The only account allowed to sweep: the factory that deployed this forwarder.
    address public immutable factory;

    error NotFactory();
    error TransferFailed();

    constructor() {
        factory = msg.sender;
    }

    /// @notice Native coin is taken after deployment as it was before (an address without code
    ///         takes anything): it waits here for a sweep of `address(0)`.
    receive() external payable {}

    /// @notice Sends `amount` of `token` held here to `to`: the token's smallest unit, or wei of
    ///         the native coin when `token` is the zero address.
    function sweep(address token, address to, uint256 amount) external {
        if (msg.sender != factory) revert NotFactory();
        bool success;
        if (token == address(0)) {
            // No return data copied: every deposit address's deployment pays for this code's size.
            assembly {
                success := call(gas(), to, amount, 0, 0, 0, 0)
            }
            if (!success) revert TransferFailed();
            return;
        }
        bytes memory data;
        (success, data) = token.call(abi.encodeWithSignature("transfer(address,uint256)", to, amount));
        // Accepts tokens returning nothing (USDT) as well as `true`; rejects `false`, a revert,
        // or a call to an address without code.
        if (!success) revert TransferFailed();
        if (data.length == 0) {
            if (token.code.length == 0) revert TransferFailed();
        } else if (data.length < 32 || abi.decode(data, (uint256)) != 1) {
            revert TransferFailed();
        }
    }
}
