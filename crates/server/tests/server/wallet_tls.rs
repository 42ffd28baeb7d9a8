//! `--wallet https://…`: the wallet's certificate is checked against the
//! system's roots and `--wallet-ca-file`, so a wallet with a certificate of
//! an operator's own CA is reached only when that CA is given.

use crate::wallet_stub::{Stub, SECRET};
use eldorado_server::config::WalletConfig;
use eldorado_server::wallet_client::{NoAnswer, WalletClient};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(10);

/// An operator's own CA and a wallet certificate for `localhost` it issued.
struct OwnCa {
    ca_pem: String,
    server: rustls::ServerConfig,
}

fn own_ca() -> OwnCa {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let wallet_key = KeyPair::generate().unwrap();
    let wallet = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&wallet_key, &issuer)
        .unwrap();
    let server = rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![wallet.der().clone()],
        rustls::pki_types::PrivateKeyDer::try_from(wallet_key.serialize_der()).unwrap(),
    )
    .unwrap();
    OwnCa {
        ca_pem: ca.pem(),
        server,
    }
}

fn client(url: &str, ca_pem: Option<&str>) -> WalletClient {
    WalletClient::new(&WalletConfig {
        url: url.to_owned(),
        secret: SECRET.to_vec(),
        timeout: TIMEOUT,
        retry: Duration::from_secs(3_600),
        ca_pem: ca_pem.map(|pem| pem.as_bytes().to_vec()),
        insecure_http: false,
        outbox: Default::default(),
    })
}

#[tokio::test]
async fn a_wallet_with_the_operators_own_ca_is_reached_only_with_that_ca() {
    let ca = own_ca();
    let stub = Stub::start_tls(TIMEOUT, ca.server).await;
    stub.set_balance("alice", 1_234);

    let trusted = client(&stub.url, Some(&ca.ca_pem));
    assert_eq!(trusted.balance("alice").await.unwrap(), 1_234);

    // The system's roots alone do not know the operator's CA.
    match client(&stub.url, None).balance("alice").await {
        Err(NoAnswer::Transport(why)) => {
            assert!(why.to_lowercase().contains("certificate"), "{why}")
        }
        other => panic!("a certificate of an unknown CA was accepted: {other:?}"),
    }

    // Another CA's certificate does not stand in for it.
    let stranger = own_ca();
    assert!(matches!(
        client(&stub.url, Some(&stranger.ca_pem))
            .balance("alice")
            .await,
        Err(NoAnswer::Transport(_))
    ));
}

#[test]
fn the_ca_file_is_read_and_checked_at_start() {
    let ca = own_ca();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ca.pem");
    std::fs::write(&file, &ca.ca_pem).unwrap();
    assert_eq!(
        WalletConfig::read_ca_file(&file).unwrap(),
        ca.ca_pem.as_bytes()
    );
}
