// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title TestStablecoin
/// @notice Minimal ERC-20 with owner-only minting, EIP-2612 permit and, as real USDC has,
///         EIP-3009 transfer/receive with authorization (what x402's `exact` scheme settles with),
///         used to stand in for USDC/USDT (6 decimals) and DAI (18 decimals) on local chains.
///         Not for production. Its EIP-712 domain is (name, version), as USDC's ("USD Coin", "2").
///         Like USDT it has a fee switch (off unless the owner sets it): a transfer then
///         delivers `amount - fee` and the fee goes to a collector, each with its own `Transfer`.
contract TestStablecoin {
    string public name;
    string public symbol;
    /// @notice The EIP-712 domain's version (USDC's is "2").
    string public version;
    uint8 public immutable decimals;
    address public immutable owner;

    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    /// @notice Fee on every transfer, in basis points of the amount (0: none), and who receives it.
    uint256 public feeBps;
    address public feeCollector;

    /// @notice EIP-2612 per-owner permit nonce.
    mapping(address => uint256) public nonces;

    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    /// @notice EIP-3009: whether `authorizer`'s authorization `nonce` was used (each settles at most once).
    mapping(address => mapping(bytes32 => bool)) public authorizationState;

    bytes32 private immutable _versionHash;

    bytes32 private immutable _nameHash;
    // Cached for the deployment chain; recomputed if the chain id changes (fork safety).
    uint256 private immutable _cachedChainId;
    bytes32 private immutable _cachedDomainSeparator;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event FeeChanged(uint256 feeBps, address collector);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);

    error NotOwner();
    error InsufficientBalance();
    error InsufficientAllowance();
    error InvalidReceiver();
    error PermitExpired();
    error InvalidSignature();
    error InvalidFee();
    error AuthorizationNotYetValid();
    error AuthorizationExpired();
    error AuthorizationUsedOrCanceled();
    error CallerMustBePayee();

    constructor(string memory name_, string memory symbol_, uint8 decimals_, string memory version_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        version = version_;
        owner = msg.sender;
        _nameHash = keccak256(bytes(name_));
        _versionHash = keccak256(bytes(version_));
        _cachedChainId = block.chainid;
        _cachedDomainSeparator = _buildDomainSeparator();
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != owner) revert NotOwner();
        if (to == address(0)) revert InvalidReceiver();
        totalSupply += amount;
        unchecked {
            // Cannot overflow: balance <= totalSupply, which was just checked.
            balanceOf[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    /// @notice Turns the transfer fee on (`bps` > 0, paid to `collector`) or off (0).
    function setFee(uint256 bps, address collector) external {
        if (msg.sender != owner) revert NotOwner();
        if (bps > 10_000 || (bps > 0 && collector == address(0))) revert InvalidFee();
        feeBps = bps;
        feeCollector = collector;
        emit FeeChanged(bps, collector);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    /// One Transfer of `amount` to each of `to`, in one transaction: how benchmarks make a
    /// mainnet-like stream of unrelated transfers cheaply (bench/ingest.ts).
    function transferBatch(address[] calldata to, uint256 amount) external returns (bool) {
        for (uint256 i = 0; i < to.length; i++) _transfer(msg.sender, to[i], amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        // An infinite allowance is never decreased (common ERC-20 convention, saves gas).
        if (allowed != type(uint256).max) {
            if (allowed < amount) revert InsufficientAllowance();
            unchecked {
                allowance[from][msg.sender] = allowed - amount;
            }
        }
        _transfer(from, to, amount);
        return true;
    }

    /// @notice EIP-2612: set `spender`'s allowance over `owner_`'s tokens with an off-chain signature.
    function permit(
        address owner_,
        address spender,
        uint256 value,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        if (block.timestamp > deadline) revert PermitExpired();
        // Reject malleable (high-s) signatures, as OpenZeppelin's ECDSA does.
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) {
            revert InvalidSignature();
        }
        bytes32 structHash;
        unchecked {
            structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner_, spender, value, nonces[owner_]++, deadline));
        }
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0) || signer != owner_) revert InvalidSignature();
        _approve(owner_, spender, value);
    }

    /// @notice EIP-3009: anyone may submit `from`'s signed authorization to pay `to` (x402's facilitator does).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        bytes32 digest = _authorizationDigest(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce);
        _useAuthorization(digest, from, nonce, validAfter, validBefore, v, r, s);
        _transfer(from, to, value);
    }

    /// @notice EIP-3009 with the signature as bytes (USDC v2.2's overload); 65-byte ECDSA signatures only.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        (uint8 v, bytes32 r, bytes32 s) = _split(signature);
        bytes32 digest = _authorizationDigest(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce);
        _useAuthorization(digest, from, nonce, validAfter, validBefore, v, r, s);
        _transfer(from, to, value);
    }

    /// @notice EIP-3009: only the payee `to` may submit it (no front-running a contract that pulls the money).
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        if (to != msg.sender) revert CallerMustBePayee();
        bytes32 digest = _authorizationDigest(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce);
        _useAuthorization(digest, from, nonce, validAfter, validBefore, v, r, s);
        _transfer(from, to, value);
    }

    function _authorizationDigest(
        bytes32 typehash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce
    ) private view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(typehash, from, to, value, validAfter, validBefore, nonce));
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
    }

    /// Checks the window and the signer, then spends the nonce (before the transfer: no re-entry can reuse it).
    function _useAuthorization(
        bytes32 digest,
        address from,
        bytes32 nonce,
        uint256 validAfter,
        uint256 validBefore,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) private {
        if (block.timestamp <= validAfter) revert AuthorizationNotYetValid();
        if (block.timestamp >= validBefore) revert AuthorizationExpired();
        if (authorizationState[from][nonce]) revert AuthorizationUsedOrCanceled();
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) revert InvalidSignature();
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0) || signer != from) revert InvalidSignature();
        authorizationState[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
    }

    function _split(bytes calldata signature) private pure returns (uint8 v, bytes32 r, bytes32 s) {
        if (signature.length != 65) revert InvalidSignature();
        r = bytes32(signature[0:32]);
        s = bytes32(signature[32:64]);
        v = uint8(signature[64]);
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return block.chainid == _cachedChainId ? _cachedDomainSeparator : _buildDomainSeparator();
    }

    function _buildDomainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, _nameHash, _versionHash, block.chainid, address(this)));
    }

    function _transfer(address from, address to, uint256 amount) private {
        if (to == address(0)) revert InvalidReceiver();
        uint256 fromBalance = balanceOf[from];
        if (fromBalance < amount) revert InsufficientBalance();
        // The fee, as USDT takes it: out of the amount, its own Transfer first.
        uint256 fee = feeBps == 0 ? 0 : (amount * feeBps) / 10_000;
        unchecked {
            balanceOf[from] = fromBalance - amount;
            // Cannot overflow: the sum of balances is bounded by totalSupply.
            balanceOf[to] += amount - fee;
        }
        if (fee > 0) {
            unchecked {
                balanceOf[feeCollector] += fee;
            }
            emit Transfer(from, feeCollector, fee);
        }
        emit Transfer(from, to, amount - fee);
    }

    function _approve(address owner_, address spender, uint256 amount) private {
        allowance[owner_][spender] = amount;
        emit Approval(owner_, spender, amount);
    }
}
