// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DepositForwarder
/// @notice The contract behind a per-payment deposit address. The address is known before the
///         contract exists (CREATE2 from `ForwarderFactory`), so customers pay into it first and
///         the factory deploys and sweeps it later in one operator transaction. It holds no key
///         and never needs gas of its own.
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

    /// @notice Sends `amount` (token's smallest unit) of `token` held here to `to`.
    function sweep(address token, address to, uint256 amount) external {
        if (msg.sender != factory) revert NotFactory();
        (bool success, bytes memory data) =
            token.call(abi.encodeWithSignature("transfer(address,uint256)", to, amount));
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
