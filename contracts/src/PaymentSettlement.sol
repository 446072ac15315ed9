// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AuthorizationSettlement} from "./AuthorizationSettlement.sol";

/// @title PaymentSettlement
/// @notice Settles operator-signed EIP-712 payment intents: the payer's wallet calls `pay`, the
///         contract checks deadline, single use and the operator's signature, then pulls the
///         tokens and pays merchant and fee recipient in the same transaction. A wrong merchant,
///         a wrong amount or a replayed intent cannot settle.
///         `splitPayment` is the unsigned path the published client SDK (`coinley-pay`) calls:
///         the caller names token, amount and recipients, so it settles nothing by itself;
///         the service credits it only when its event matches what it asked for that payment.
///         x402 payments settle through `settleAuthorization` (`AuthorizationSettlement`).
contract PaymentSettlement is AuthorizationSettlement {
    /// @param paymentId    The payment's id (a UUID left-padded to 32 bytes off-chain).
    /// @param merchant     Receives `amount - fee`.
    /// @param token        ERC-20 the payment is made in.
    /// @param amount       Total the payer pays, in the token's smallest unit.
    /// @param fee          Part of `amount` sent to `feeRecipient`; `fee <= amount`.
    /// @param feeRecipient Receives `fee` (no transfer when `fee == 0`).
    /// @param deadline     Last block timestamp (inclusive) at which the intent settles.
    struct PaymentIntent {
        bytes32 paymentId;
        address merchant;
        address token;
        uint256 amount;
        uint256 fee;
        address feeRecipient;
        uint256 deadline;
    }

    /// @notice What the SDK's `splitPayment` sends (member names are the SDK's own).
    /// @param token       ERC-20 paid.
    /// @param amount      Total pulled from the caller, in the token's smallest unit.
    /// @param paymentId   The service's payment id, as text.
    /// @param recipient1  Receives what the other shares leave (the merchant).
    /// @param recipient2  Receives `amount * recipient2Percentage / 10000` (the service's fee).
    /// @param recipient3  Receives `amount * recipient3Percentage / 10000`; the zero address only at 0%.
    /// @param recipient1Percentage Basis points; the three sum to exactly 10000.
    struct SplitPaymentParams {
        address token;
        uint256 amount;
        string paymentId;
        address recipient1;
        address recipient2;
        address recipient3;
        uint256 recipient1Percentage;
        uint256 recipient2Percentage;
        uint256 recipient3Percentage;
    }

    bytes32 public constant PAYMENT_INTENT_TYPEHASH = keccak256(
        "PaymentIntent(bytes32 paymentId,address merchant,address token,uint256 amount,uint256 fee,address feeRecipient,uint256 deadline)"
    );
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("PaymentSettlement");
    bytes32 private constant VERSION_HASH = keccak256("1");
    /// @dev Upper bound of a non-malleable ECDSA `s` (secp256k1n / 2).
    /// @dev 100% in basis points.
    uint256 private constant BPS = 10_000;
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    address public immutable owner;
    /// @notice Signs payment intents off-chain.
    address public operator;

    // Cached for the deployment chain; recomputed if the chain id changes (fork safety).
    uint256 private immutable _cachedChainId;
    bytes32 private immutable _cachedDomainSeparator;

    mapping(bytes32 paymentId => bool) private _processed;
    /// @dev Keyed by the whole params (`splitPaymentKey`), never by the id alone: a stranger who
    ///      calls first with the same id and other recipients cannot block the real payment.
    mapping(bytes32 splitKey => bool) private _splitUsed;

    event PaymentSettled(
        bytes32 indexed paymentId,
        address indexed payer,
        address indexed token,
        address merchant,
        uint256 amount,
        uint256 fee
    );
    /// @param key      `splitPaymentKey(params)`: what single use is keyed by.
    /// @param received What the recipients' balances rose by in all (less than `params.amount`
    ///                 only for a token that takes a fee on transfer).
    event SplitPaymentExecuted(bytes32 indexed key, address indexed payer, address indexed token, SplitPaymentParams params, uint256 received);
    event OperatorChanged(address indexed previousOperator, address indexed newOperator);

    error IntentExpired();
    error PaymentAlreadyProcessed(bytes32 paymentId);
    error InvalidSignature();

    constructor(address operator_, address owner_, address settler_) AuthorizationSettlement(settler_) {
        operator = operator_;
        owner = owner_;
        _cachedChainId = block.chainid;
        _cachedDomainSeparator = _buildDomainSeparator();
        emit OperatorChanged(address(0), operator_);
    }

    /// @notice Replaces the intent signer. Intents signed by the previous operator stop settling.
    function setOperator(address newOperator) external {
        if (msg.sender != owner) revert NotOwner();
        emit OperatorChanged(operator, newOperator);
        operator = newOperator;
    }

    /// @notice Pays `intent` from the caller's balance; needs an allowance of `intent.amount`.
    /// @param signature The operator's 65-byte (r, s, v) signature over `hashIntent(intent)`.
    function pay(PaymentIntent calldata intent, bytes calldata signature) external {
        _pay(intent, signature);
    }

    /// @notice Like `pay`, with the allowance granted by an EIP-2612 permit in the same transaction.
    /// @dev A failing permit is ignored: someone may have submitted it first, and the payment
    ///      still succeeds if the allowance is there. If it is not, the transfer reverts.
    function payWithPermit(
        PaymentIntent calldata intent,
        bytes calldata signature,
        uint256 permitDeadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        // A low-level call whose failure is ignored is a try/catch that needs no interface
        // declaration (which the compile script would emit as one more artifact).
        (bool permitted,) = intent.token.call(
            abi.encodeWithSignature(
                "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
                msg.sender,
                address(this),
                intent.amount,
                permitDeadline,
                v,
                r,
                s
            )
        );
        permitted; // Ignored on purpose: the transfer below fails if the allowance is short.
        _pay(intent, signature);
    }

    /// @notice Pulls `params.amount` of `params.token` from the caller and pays the three
    ///         recipients their shares in the same transaction; each params settle at most once.
    ///         Revert reasons are the ones the SDK recognises.
    function splitPayment(SplitPaymentParams calldata params) external {
        require(params.amount > 0, "Amount must be greater than 0");
        require(
            params.recipient1Percentage <= BPS && params.recipient2Percentage <= BPS && params.recipient3Percentage <= BPS
                && params.recipient1Percentage + params.recipient2Percentage + params.recipient3Percentage == BPS,
            "Percentages must equal 100%"
        );
        require(
            params.recipient1 != address(0) && params.recipient2 != address(0)
                && (params.recipient3 != address(0) || params.recipient3Percentage == 0),
            "Invalid recipient"
        );
        bytes32 key = splitPaymentKey(params);
        require(!_splitUsed[key], "Payment ID already used");
        // Effects before interactions: a re-entering token cannot settle the same params twice.
        _splitUsed[key] = true;

        // Shares 2 and 3 round down; recipient1 (the merchant) gets the rest, so the shares add up to `amount`.
        uint256 share2 = params.amount * params.recipient2Percentage / BPS;
        uint256 share3 = params.amount * params.recipient3Percentage / BPS;
        uint256 received = _pull(params.token, params.recipient1, params.amount - share2 - share3)
            + _pull(params.token, params.recipient2, share2) + _pull(params.token, params.recipient3, share3);
        emit SplitPaymentExecuted(key, msg.sender, params.token, params, received);
    }

    /// @notice The single-use key of `params`: keccak256 of their ABI encoding.
    function splitPaymentKey(SplitPaymentParams calldata params) public pure returns (bytes32) {
        return keccak256(abi.encode(params));
    }

    /// @notice Whether a `splitPayment` with these params (by `splitPaymentKey`) has settled.
    function isSplitPaymentUsed(bytes32 key) external view returns (bool) {
        return _splitUsed[key];
    }

    /// @notice Whether `paymentId` has settled (each id settles at most once).
    function isProcessed(bytes32 paymentId) external view returns (bool) {
        return _processed[paymentId];
    }

    /// @notice The EIP-712 digest the operator signs for `intent`.
    function hashIntent(PaymentIntent calldata intent) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                PAYMENT_INTENT_TYPEHASH,
                intent.paymentId,
                intent.merchant,
                intent.token,
                intent.amount,
                intent.fee,
                intent.feeRecipient,
                intent.deadline
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return block.chainid == _cachedChainId ? _cachedDomainSeparator : _buildDomainSeparator();
    }

    function _pay(PaymentIntent calldata intent, bytes calldata signature) private {
        if (intent.amount == 0 || intent.fee > intent.amount) revert InvalidAmount();
        if (block.timestamp > intent.deadline) revert IntentExpired();
        if (_processed[intent.paymentId]) revert PaymentAlreadyProcessed(intent.paymentId);
        address signer = _recover(hashIntent(intent), signature);
        // The zero check matters when the operator is unset: a bad signature recovers address(0).
        if (signer == address(0) || signer != operator) revert InvalidSignature();

        // Effects before interactions: a re-entering token cannot settle the same id twice.
        _processed[intent.paymentId] = true;

        uint256 merchantAmount;
        unchecked {
            // Cannot underflow: fee <= amount was checked above.
            merchantAmount = intent.amount - intent.fee;
        }
        // Zero transfers are skipped: some tokens revert on them.
        if (merchantAmount != 0) _safeTransferFrom(intent.token, msg.sender, intent.merchant, merchantAmount);
        if (intent.fee != 0) _safeTransferFrom(intent.token, msg.sender, intent.feeRecipient, intent.fee);

        emit PaymentSettled(intent.paymentId, msg.sender, intent.token, intent.merchant, intent.amount, intent.fee);
    }

    /// @dev Moves `amount` from the caller to `to` and returns what `to`'s balance rose by
    ///      (zero transfers are skipped: some tokens revert on them). Accepts tokens returning
    ///      nothing (USDT) as well as `true`; the revert reason is the one the SDK recognises.
    function _pull(address token, address to, uint256 amount) private returns (uint256) {
        if (amount == 0) return 0;
        uint256 before = _balanceOf(token, to);
        (bool success, bytes memory data) =
            token.call(abi.encodeWithSignature("transferFrom(address,address,uint256)", msg.sender, to, amount));
        require(
            success && (data.length == 0 ? token.code.length > 0 : data.length >= 32 && abi.decode(data, (uint256)) == 1),
            "Token transfer failed"
        );
        uint256 afterwards = _balanceOf(token, to);
        return afterwards > before ? afterwards - before : 0;
    }

    function _balanceOf(address token, address holder) private view returns (uint256) {
        (bool success, bytes memory data) = token.staticcall(abi.encodeWithSignature("balanceOf(address)", holder));
        require(success && data.length >= 32, "Token transfer failed");
        return abi.decode(data, (uint256));
    }

    /// @dev The signer of `digest`, or address(0) for anything but a canonical 65-byte signature.
    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > MAX_S || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
    }

    /// @dev `transferFrom` that accepts tokens returning nothing (USDT) as well as `true`,
    ///      and rejects `false`, a revert, or a call to an address without code.
    function _safeTransferFrom(address token, address from, address to, uint256 amount) private {
        (bool success, bytes memory data) =
            token.call(abi.encodeWithSignature("transferFrom(address,address,uint256)", from, to, amount));
        if (!success) revert TransferFailed();
        if (data.length == 0) {
            if (token.code.length == 0) revert TransferFailed();
        } else if (data.length < 32 || abi.decode(data, (uint256)) != 1) {
            revert TransferFailed();
        }
    }

    function _owner() internal view override returns (address) {
        return owner;
    }

    function _buildDomainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }
}
