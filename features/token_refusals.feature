Feature: Token requests that get no token
  The token endpoint issues tokens for the two grants of tokens.feature
  alone: the password grant and the refresh grant, asked for in a
  form-encoded body by a client that proves who it is with HTTP Basic
  authentication. Any other request to it gets no token, and neither does
  any other way to it.
  Rule: A request the specification does not allow gets no token

    @spec
    Scenario Outline: No token for <request>
      When the client asks for <request>
      Then no token is issued

      @TOK-3
      Examples: wrong or missing user credentials
        | request                                |
        | the user's token with a wrong password |
        | an unknown user's token                |
        | the user's token without "grant_type"  |
        | the user's token without "username"    |
        | the user's token without "password"    |

      @TOK-1
      Examples: wrong or missing client authentication, on either grant
        | request                                                   |
        | the user's token with a wrong client secret               |
        | the user's token without client credentials               |
        | a refresh of the refresh token with a wrong client secret |
        | a refresh of the refresh token without client credentials |

      @TOK-10 @CLI-1
      Examples: credentials of the wrong kind
        | request                                                                    |
        | the user's token with the user's credentials as the client's               |
        | a refresh of the refresh token with the user's credentials as the client's |
        | a token with the client's credentials as the user's                        |

      @TOK-2
      Examples: a body that is not form-encoded
        | request                         |
        | the user's token in a JSON body |

      @TOK-9 @CLI-3
      Examples: grant types other than password and refresh_token
        | request                                                   |
        | the user's token with the grant type "client_credentials" |
        | the user's token with the grant type "authorization_code" |
        | the user's token with the grant type "implicit"           |
        | the user's token with the grant type "something_else"     |

      @TOK-4
      Examples: a refresh token that was never issued
        | request                      |
        | a refresh of a made-up token |

      @TOK-14
      Examples: an access token sent as a refresh token
        | request                       |
        | a refresh of the access token |

    @ref @TOK-11
    Scenario Outline: The reference server answers <request> with <status> "<error>"
      When the client asks for <request>
      Then the token request is refused with status <status> and error "<error>"
      And the answer does not repeat any token of this scenario

      Examples:
        | request                                                   | status | error                  |
        | the user's token with a wrong password                    | 400    | invalid_grant          |
        | an unknown user's token                                   | 400    | invalid_grant          |
        | the user's token with the scope "read admin"              | 400    | invalid_scope          |
        | the user's token with the grant type "client_credentials" | 400    | unsupported_grant_type |
        | a refresh of a made-up token                              | 400    | invalid_grant          |
        | the user's token without client credentials               | 401    | invalid_client         |
        | a refresh of the refresh token without client credentials | 401    | invalid_client         |
        | a refresh of the refresh token with a wrong client secret | 401    | invalid_client         |

      @TOK-14
      Examples: an access token sent as a refresh token
        | request                       | status | error         |
        | a refresh of the access token | 400    | invalid_grant |

    @spec @TOK-16
    Scenario Outline: A client whose Basic authentication fails is answered 401 and challenged for Basic: <request>
      When the client asks for <request>
      Then no token is issued
      And the answer has status 401
      And the answer challenges the caller to authenticate with "Basic"

      Examples:
        | request                                                      |
        | the user's token with a wrong client secret                  |
        | a refresh of the refresh token with a wrong client secret    |
        | the user's token with the user's credentials as the client's |

    @ref @TOK-11
    Scenario: A wrong client secret is an invalid client
      When the client asks for the user's token with a wrong client secret
      Then the token request is refused with status 401 and error "invalid_client"

    @ref @TOK-3 @TOK-11
    Scenario: A missing parameter is an invalid request that names it
      When the client asks for the user's token without "password"
      Then the token request is refused with status 400 and error "invalid_request"
      And the error description mentions "password"

    @ref @TOK-2 @TOK-11
    Scenario: A JSON body is an invalid request
      When the client asks for the user's token in a JSON body
      Then the token request is refused with status 400 and error "invalid_request"
      And the error description mentions "form-encoded"

  Rule: Other ways to the token endpoint issue nothing

    @ref @TOK-11
    Scenario: The token endpoint only takes POST
      When a caller sends GET to "/oauth/token"
      Then the answer has status 405
      And the answer allows only "POST"

    @ref @TOK-12 @CLI-3
    Scenario: The authorization endpoint exists but issues nothing
      When a caller asks the authorization endpoint for a code for the client
      Then the answer is an error with status 400
      And the answer does not redirect
      And no token is issued
