// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title AuthorizationSettlement
/// @notice Settles x402 payments with the service fee: the agent's EIP-3009 authorization pays
///         this contract, which passes it on to merchant and fee recipient in the same
///         transaction. Only the settler (the service's worker) may settle: an authorization
///         names no merchant, so a stranger watching the mempool could otherwise name itself.
abstract contract AuthorizationSettlement {
    /// @notice An EIP-3009 `TransferWithAuthorization` signed by `from` to pay this contract.
    /// @param token The EIP-3009 token (USDC).
    /// @param from  The payer (the agent), who signed it.
    /// @param value What it pays, in the token's smallest unit.
    struct Authorization {
        address token;
        address from;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }

    /// @notice The only account allowed to settle authorizations.
    address public settler;

    /// @dev Keyed by `authorizationKey`: an authorization is passed on at most once.
    mapping(bytes32 authorizationKey => bool) private _authorizationSettled;

    /// @param amount The authorization's value: `amount - fee` went to `merchant`, `fee` to `feeRecipient`.
    event AuthorizationSettled(
        address indexed token,
        address indexed from,
        bytes32 indexed nonce,
        address merchant,
        uint256 amount,
        uint256 fee,
        address feeRecipient
    );
    event SettlerChanged(address indexed previousSettler, address indexed newSettler);

    error NotOwner();
    error NotSettler();
    error AuthorizationAlreadySettled();
    error InvalidAmount();
    error TransferFailed();

    constructor(address settler_) {
        settler = settler_;
        emit SettlerChanged(address(0), settler_);
    }

    /// @dev The account that may replace the settler.
    function _owner() internal view virtual returns (address);

    /// @notice Replaces the account allowed to settle authorizations.
    function setSettler(address newSettler) external {
        if (msg.sender != _owner()) revert NotOwner();
        emit SettlerChanged(settler, newSettler);
        settler = newSettler;
    }

    /// @notice Pulls `auth` (signed to pay this contract) with the token's
    ///         `transferWithAuthorization`, then pays `merchant` `auth.value - fee` and
    ///         `feeRecipient` `fee`; each authorization is passed on once.
    /// @param signature The payer's signature: 65-byte ECDSA, or a contract wallet's (passed to the
    ///                  token's `bytes` overload, as USDC v2.2 has).
    /// @param received  Someone submitted the authorization to the token directly, and the
    ///                  settler saw its money arrive here: it is passed on without pulling.
    ///                  Never inferred from the token's `authorizationState`: a payer who cancels
    ///                  the authorization would make this contract pay from what it holds.
    function settleAuthorization(
        Authorization calldata auth,
        bytes calldata signature,
        address merchant,
        uint256 fee,
        address feeRecipient,
        bool received
    ) external {
        if (msg.sender != settler || msg.sender == address(0)) revert NotSettler();
        if (auth.value == 0 || fee > auth.value) revert InvalidAmount();
        bytes32 key = authorizationKey(auth.token, auth.from, auth.nonce);
        if (_authorizationSettled[key]) revert AuthorizationAlreadySettled();
        // Effects before interactions: a re-entering token cannot pass the same authorization on twice.
        _authorizationSettled[key] = true;
        if (!received) _receive(auth, signature);

        uint256 merchantAmount;
        unchecked {
            // Cannot underflow: fee <= value was checked above.
            merchantAmount = auth.value - fee;
        }
        // Zero transfers are skipped: some tokens revert on them.
        if (merchantAmount != 0) _safeTransfer(auth.token, merchant, merchantAmount);
        if (fee != 0) _safeTransfer(auth.token, feeRecipient, fee);
        emit AuthorizationSettled(auth.token, auth.from, auth.nonce, merchant, auth.value, fee, feeRecipient);
    }

    /// @notice The single-use key of an authorization: keccak256 of (token, from, nonce).
    function authorizationKey(address token, address from, bytes32 nonce) public pure returns (bytes32) {
        return keccak256(abi.encode(token, from, nonce));
    }

    /// @notice Whether the authorization has been passed on by `settleAuthorization`.
    function isAuthorizationSettled(address token, address from, bytes32 nonce) external view returns (bool) {
        return _authorizationSettled[authorizationKey(token, from, nonce)];
    }

    /// @dev Pulls `auth` into this contract; reverts with the token's own reason if it refuses.
    function _receive(Authorization calldata auth, bytes calldata signature) private {
        bytes memory call;
        if (signature.length == 65) {
            // Every EIP-3009 token has the (v, r, s) form; the bytes overload is newer.
            call = abi.encodeWithSignature(
                "transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)",
                auth.from,
                address(this),
                auth.value,
                auth.validAfter,
                auth.validBefore,
                auth.nonce,
                uint8(signature[64]),
                bytes32(signature[0:32]),
                bytes32(signature[32:64])
            );
        } else {
            call = abi.encodeWithSignature(
                "transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)",
                auth.from,
                address(this),
                auth.value,
                auth.validAfter,
                auth.validBefore,
                auth.nonce,
                signature
            );
        }
        (bool success, bytes memory reason) = auth.token.call(call);
        if (!success) {
            assembly {
                revert(add(reason, 32), mload(reason))
            }
        }
    }

    /// @dev `transfer` out of this contract, accepting tokens returning nothing (USDT) as well as `true`.
    function _safeTransfer(address token, address to, uint256 amount) private {
        (bool success, bytes memory data) = token.call(abi.encodeWithSignature("transfer(address,uint256)", to, amount));
        if (!success) revert TransferFailed();
        if (data.length == 0) {
            if (token.code.length == 0) revert TransferFailed();
        } else if (data.length < 32 || abi.decode(data, (uint256)) != 1) {
            revert TransferFailed();
        }
    }
}
