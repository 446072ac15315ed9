// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DepositForwarder} from "./DepositForwarder.sol";

/// @title ForwarderFactory
/// @notice Deploys a `DepositForwarder` per payment at a CREATE2 address derived from
///         (paymentId, merchant wallet), and sweeps deposits out of it on the operator's order.
contract ForwarderFactory {
    address public immutable owner;
    /// @notice The service's hot account: the only one allowed to deploy and sweep.
    address public operator;
    /// @notice keccak256 of `DepositForwarder`'s init code, the CREATE2 input off-chain code needs.
    bytes32 public immutable forwarderInitCodeHash;

    event OperatorChanged(address indexed previousOperator, address indexed newOperator);
    event Swept(
        bytes32 indexed paymentId, address indexed forwarder, address indexed token, address to, uint256 amount
    );
    event SweptNative(bytes32 indexed paymentId, address indexed forwarder, address to, uint256 amount);

    error NotOperator();
    error NotOwner();
    /// @dev Raised by the forwarder; declared here so callers of the factory can decode it.
    error TransferFailed();

    constructor(address operator_, address owner_) {
        operator = operator_;
        owner = owner_;
        forwarderInitCodeHash = keccak256(type(DepositForwarder).creationCode);
        emit OperatorChanged(address(0), operator_);
    }

    /// @notice Replaces the operator.
    function setOperator(address newOperator) external {
        if (msg.sender != owner) revert NotOwner();
        emit OperatorChanged(operator, newOperator);
        operator = newOperator;
    }

    /// @notice The deposit address of a payment, whether or not its forwarder is deployed yet.
    function computeAddress(bytes32 paymentId, address merchantWallet) public view returns (address) {
        bytes32 hash = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), _salt(paymentId, merchantWallet), forwarderInitCodeHash)
        );
        return address(uint160(uint256(hash)));
    }

    /// @notice Deploys the payment's forwarder unless it already exists, then sends `amount`
    ///         (token's smallest unit) of `token` from it to `to`: the merchant wallet, or a refund
    ///         address the operator names. Reverts if the forwarder holds less than `amount`.
    function deployAndSweep(bytes32 paymentId, address merchantWallet, address token, address to, uint256 amount)
        external
        returns (address forwarder)
    {
        if (msg.sender != operator) revert NotOperator();
        forwarder = _deployed(paymentId, merchantWallet);
        DepositForwarder(payable(forwarder)).sweep(token, to, amount);
        emit Swept(paymentId, forwarder, token, to, amount);
    }

    /// @notice Like `deployAndSweep`, for the native coin at the payment's deposit address
    ///         (`amount` in wei): what a customer sent there instead of the token.
    function deployAndSweepNative(bytes32 paymentId, address merchantWallet, address payable to, uint256 amount)
        external
        returns (address forwarder)
    {
        if (msg.sender != operator) revert NotOperator();
        forwarder = _deployed(paymentId, merchantWallet);
        DepositForwarder(payable(forwarder)).sweep(address(0), to, amount);
        emit SweptNative(paymentId, forwarder, to, amount);
    }

    /// @dev The payment's forwarder, deployed first if it is not yet (it keeps what the address already holds).
    function _deployed(bytes32 paymentId, address merchantWallet) private returns (address forwarder) {
        forwarder = computeAddress(paymentId, merchantWallet);
        if (forwarder.code.length == 0) {
            new DepositForwarder{salt: _salt(paymentId, merchantWallet)}();
        }
    }

    function _salt(bytes32 paymentId, address merchantWallet) private pure returns (bytes32) {
        return keccak256(abi.encode(paymentId, merchantWallet));
    }
}
