use super::*;

fn target(url: &str) -> Target {
    Target::new(url, "h".into())
}

#[test]
fn sslmodes_map_as_libpqs_table_in_ssl_support() {
    let tls = |url: &str| plan(&target(url)).map(|plan| plan.tls);
    let verified = |root_cert: Option<&str>, names| Tls::Verified {
        root_cert: root_cert.map(PathBuf::from),
        names,
    };
    // No sslmode is libpq's `prefer`: TLS when offered, the certificate not checked.
    assert_eq!(tls("postgres://u@db.example/q").unwrap(), Tls::Prefer);
    for mode in ["allow", "prefer"] {
        let url = format!("postgres://u@db.example/q?sslmode={mode}");
        assert_eq!(tls(&url).unwrap(), Tls::Prefer, "{mode}");
    }
    // `require` checks nothing without a root certificate file; with one, the chain.
    assert_eq!(
        tls("postgres://u@db.example/q?sslmode=require").unwrap(),
        Tls::Encrypted
    );
    assert_eq!(
        tls("postgres://u@db/q?sslmode=require&sslrootcert=/ca.pem").unwrap(),
        verified(Some("/ca.pem"), false)
    );
    let mut from_env = target("postgres://u@db/q?sslmode=require");
    from_env.root_cert_env = Some("/env-ca.pem".into());
    assert_eq!(
        plan(&from_env).unwrap().tls,
        verified(Some("/env-ca.pem"), false)
    );
    let dir = tempfile::tempdir().unwrap();
    let home_root = dir.path().join("root.crt");
    let mut from_home = target("postgres://u@db/q?sslmode=require");
    from_home.root_cert_home = Some(home_root.clone());
    assert_eq!(
        plan(&from_home).unwrap().tls,
        Tls::Encrypted,
        "no such file"
    );
    std::fs::write(&home_root, "").unwrap();
    assert_eq!(
        plan(&from_home).unwrap().tls,
        verified(Some(home_root.to_str().unwrap()), false)
    );
    assert_eq!(
        tls("postgres://u@db.example/q?sslmode=verify-ca").unwrap(),
        verified(None, false)
    );
    assert_eq!(
        tls("postgres://u@db.example/q?sslmode=verify-full").unwrap(),
        verified(None, true)
    );
    assert_eq!(
        tls("postgres://u@db.example/q?sslmode=disable").unwrap(),
        Tls::Off
    );
    let unknown = tls("postgres://u:s3cret@db/q?sslmode=sometimes")
        .err()
        .unwrap();
    let message = format!("{unknown:#}");
    assert!(message.contains("unknown sslmode `sometimes`"), "{message}");
    assert!(!message.contains("s3cret"), "{message}");
    let required = plan(&target("postgres://u@db.example/q?sslmode=require")).unwrap();
    assert_eq!(required.config.get_ssl_mode(), SslMode::Require);
}

#[test]
fn the_password_comes_from_the_url_then_pgpassword_then_the_passfile() {
    let dir = tempfile::tempdir().unwrap();
    let passfile = dir.path().join("pgpass");
    std::fs::write(
        &passfile,
        "# comment\nother:5432:*:u:wrong\ndb:5433:q:u:from\\:file\n*:*:*:*:fallback\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&passfile, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let password = |url: &str, env: Option<&str>| {
        let mut target = target(url);
        target.password_env = env.map(|value| SecretString::from(value.to_string()));
        target.passfile = Some(passfile.clone());
        plan(&target)
            .unwrap()
            .config
            .get_password()
            .map(|bytes| String::from_utf8_lossy(bytes).to_string())
    };
    assert_eq!(
        password("postgres://u:inurl@db:5433/q", Some("env")).as_deref(),
        Some("inurl")
    );
    assert_eq!(
        password("postgres://u@db:5433/q", Some("env")).as_deref(),
        Some("env")
    );
    assert_eq!(
        password("postgres://u@db:5433/q", None).as_deref(),
        Some("from:file")
    );
    assert_eq!(
        password("postgres://u@elsewhere/q", None).as_deref(),
        Some("fallback")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&passfile, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(
            password("postgres://u@db:5433/q", None),
            None,
            "others can read it"
        );
    }
}
